#include <stdio.h>

/* The same loop with lag = 8: at least safelen(6) lanes apart, no lane reads an element a
   lane of the same chunk writes. */
int main(void) {
    int lag = 8, n = 64;
    float v[64];
    for (int i = 0; i < n; i++) v[i] = 1.0f;
    #pragma omp simd safelen(6)
    for (int i = lag; i < n; i++)
        v[i] = v[i - lag] + 1.0f;
    printf("%.1f\n", v[n - 1]);
    return 0;
}
