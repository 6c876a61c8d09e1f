#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 500
int main(void) {
    static double a[N], b[N];
    double ta = 0, tb = 0;
    for (int i = 0; i < N; i++) { a[i] = i; b[i] = 2 * i; }
    #pragma omp parallel sections
    {
        #pragma omp section
        for (int i = 0; i < N; i++) ta += a[i];
        #pragma omp section
        for (int i = 0; i < N; i++) tb += b[i];
    }
    printf("%.1f\n", ta + tb);
    return 0;
}
