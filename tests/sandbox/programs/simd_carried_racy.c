#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static float a[N], b[N];
    for (int i = 0; i < N; i++) { a[i] = 1.0f; b[i] = (float)(i % 3); }
    #pragma omp simd
    for (int i = 1; i < N; i++)
        a[i] = a[i - 1] * 0.5f + b[i];
    printf("%.3f\n", a[N - 1]);
    return 0;
}
