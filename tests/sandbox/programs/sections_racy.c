#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 500
int main(void) {
    static double a[N], b[N];
    double total = 0;
    for (int i = 0; i < N; i++) { a[i] = i; b[i] = 2 * i; }
    #pragma omp parallel sections
    {
        #pragma omp section
        for (int i = 0; i < N; i++) total += a[i];
        #pragma omp section
        for (int i = 0; i < N; i++) total += b[i];
    }
    printf("%.1f\n", total);
    return 0;
}
