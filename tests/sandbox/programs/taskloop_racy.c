#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static int a[N];
    long sum = 0;
    for (int i = 0; i < N; i++) a[i] = i % 17;
    #pragma omp parallel
    #pragma omp single
    #pragma omp taskloop grainsize(50) shared(sum)
    for (int i = 0; i < N; i++)
        sum += a[i];
    printf("%ld\n", sum);
    return 0;
}
