#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N], b[N + 1], c[N];
    for (int i = 0; i < N; i++) a[i] = i;
    b[N] = 0;
    #pragma omp parallel
    {
        #pragma omp for
        for (int i = 0; i < N; i++) b[i] = 2 * a[i];
        #pragma omp for
        for (int i = 0; i < N; i++) c[i] = b[i] + b[i + 1];
    }
    printf("%.1f\n", c[N / 2]);
    return 0;
}
