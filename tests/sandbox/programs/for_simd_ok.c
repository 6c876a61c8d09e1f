#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 4096
int main(void) {
    static float a[N], b[N];
    float dot = 0.0f;
    for (int i = 0; i < N; i++) { a[i] = (i % 7) * 0.5f; b[i] = (i % 5) * 0.25f; }
    #pragma omp parallel for simd reduction(+:dot)
    for (int i = 0; i < N; i++)
        dot += a[i] * b[i];
    printf("%.1f\n", dot);
    return 0;
}
