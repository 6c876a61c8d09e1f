#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N];
    for (int i = 0; i < N; i++) a[i] = i % 10;
    #pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
        a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
    printf("%.3f\n", a[N / 2]);
    return 0;
}
