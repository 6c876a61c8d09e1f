#include <stdio.h>
#include <omp.h>

int hits = 0;

/* The same count as a reduction across teams and threads. */
int main(void) {
    #pragma omp target teams distribute parallel for map(tofrom: hits) num_teams(4) reduction(+: hits)
    for (int i = 0; i < 400; i++) {
        hits += 1;
    }
    printf("%d\n", hits);
    return 0;
}
