#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static long a[N];
    for (int i = 0; i < N; i++) a[i] = i % 5;
    #pragma omp parallel for
    for (int i = 1; i < N; i++)
        a[i] += a[i - 1];
    printf("%ld\n", a[N - 1]);
    return 0;
}
