#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    int count = 0, peeks = 0;
    #pragma omp parallel for reduction(+:peeks)
    for (int i = 0; i < N; i++) {
        #pragma omp atomic
        count++;
        if (count > N / 2) peeks++;
    }
    printf("%d %d\n", count, peeks > 0);
    return 0;
}
