#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 4096
int main(void) {
    static float a[N + 1];
    for (int i = 0; i <= N; i++) a[i] = (i % 7) * 0.5f;
    #pragma omp parallel for simd
    for (int i = 0; i < N; i++)
        a[i + 1] = a[i] + 1.0f;
    printf("%.1f\n", a[N]);
    return 0;
}
