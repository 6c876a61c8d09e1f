#include <stdio.h>
#include <omp.h>

int hits = 0;

/* critical excludes the threads of one team only: every team's threads add into `hits`. */
int main(void) {
    #pragma omp target teams distribute parallel for map(tofrom: hits) num_teams(4)
    for (int i = 0; i < 400; i++) {
        #pragma omp critical
        hits += 1;
    }
    printf("%d\n", hits);
    return 0;
}
