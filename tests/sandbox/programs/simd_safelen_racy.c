#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N], b[N];
    for (int i = 0; i < N; i++) { a[i] = 1.0; b[i] = i % 3; }
    #pragma omp simd safelen(8)
    for (int i = 4; i < N; i++)
        a[i] = a[i - 4] * 0.5 + b[i];
    printf("%.3f\n", a[N - 1]);
    return 0;
}
