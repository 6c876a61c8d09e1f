#include <stdio.h>

/* The distance is a variable set once: lag = 3 is shorter than safelen(6), so six lanes may
   read elements that three lanes back have not written yet. */
int main(void) {
    int lag = 3, n = 64;
    float v[64];
    for (int i = 0; i < n; i++) v[i] = 1.0f;
    #pragma omp simd safelen(6)
    for (int i = lag; i < n; i++)
        v[i] = v[i - lag] + 1.0f;
    printf("%.1f\n", v[n - 1]);
    return 0;
}
