#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static float a[N];
    float s = 0.0f;
    for (int i = 0; i < N; i++) a[i] = (float)(i % 4);
    #pragma omp simd reduction(+:s)
    for (int i = 0; i < N; i++)
        s += a[i];
    printf("%.1f\n", s);
    return 0;
}
