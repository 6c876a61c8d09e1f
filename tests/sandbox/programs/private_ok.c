#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N], b[N];
    double t;
    for (int i = 0; i < N; i++) a[i] = i * 0.5;
    #pragma omp parallel for private(t)
    for (int i = 0; i < N; i++) {
        t = a[i] * a[i];
        b[i] = t + 1.0;
    }
    printf("%.1f\n", b[N - 1]);
    return 0;
}
