#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N];
    double scale = 0;
    #pragma omp parallel
    {
        #pragma omp single
        scale = 2.5;
        #pragma omp for
        for (int i = 0; i < N; i++) a[i] = scale * i;
    }
    printf("%.1f\n", a[N - 1]);
    return 0;
}
