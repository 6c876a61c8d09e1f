#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N / 2], b[N];
    for (int i = 0; i < N; i++) b[i] = i % 11;
    #pragma omp parallel for
    for (int i = 0; i < N; i++)
        a[i / 2] += b[i];
    printf("%.1f\n", a[N / 4]);
    return 0;
}
