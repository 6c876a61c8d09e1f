#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N / 2], b[N];
    for (int i = 0; i < N; i++) b[i] = i % 11;
    #pragma omp parallel for
    for (int k = 0; k < N / 2; k++)
        a[k] = b[2 * k] + b[2 * k + 1];
    printf("%.1f\n", a[N / 4]);
    return 0;
}
