#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) { b[i] = (float)(i % 3); c[i] = 0.5f * i; }
    #pragma omp simd
    for (int i = 0; i < N; i++)
        a[i] = b[i] * 0.5f + c[i];
    printf("%.3f\n", a[N - 1]);
    return 0;
}
