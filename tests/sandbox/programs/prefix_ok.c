#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static long a[N];
    long part[65] = {0};
    for (int i = 0; i < N; i++) a[i] = i % 5;
    #pragma omp parallel
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (n > 64) n = 64;
        int lo = (int)((long)N * t / n), hi = (int)((long)N * (t + 1) / n);
        if (t < n) {
            for (int i = lo + 1; i < hi; i++) a[i] += a[i - 1];
            part[t + 1] = hi > lo ? a[hi - 1] : 0;
        }
        #pragma omp barrier
        #pragma omp single
        for (int k = 1; k <= n; k++) part[k] += part[k - 1];
        if (t < n)
            for (int i = lo; i < hi; i++) a[i] += part[t];
    }
    printf("%ld\n", a[N - 1]);
    return 0;
}
