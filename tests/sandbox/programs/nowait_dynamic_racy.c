#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = i;
    #pragma omp parallel
    {
        #pragma omp for schedule(dynamic, 4) nowait
        for (int i = 0; i < N; i++) b[i] = a[i] * 2;
        #pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < N; i++) c[i] = b[i] + 1;
    }
    printf("%.1f\n", c[N - 1]);
    return 0;
}
