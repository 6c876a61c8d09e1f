#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static double a[N];
    #pragma omp parallel
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        int chunk = N / n;
        int lo = t * chunk, hi = lo + chunk + N % n;
        if (hi > N) hi = N;
        for (int i = lo; i < hi; i++) a[i] = i * 0.25;
    }
    printf("%.2f\n", a[N - 1]);
    return 0;
}
