/* Sum of squares: fills an array of n integers from a fixed formula and prints the sum of
 * their squares. The hot loop is `kernel`, a reduction.
 * Usage: sum N (default 1000000) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

long long kernel(const int *x, long n) {
    long long total = 0;
    for (long i = 0; i < n; i++)
        total += (long long)x[i] * x[i];
    return total;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int *x = malloc((size_t)n * sizeof *x);
    if (x == NULL) return 1;
    for (long i = 0; i < n; i++) x[i] = (int)(i * 7919 % 1000) - 500;

    double t0 = now();
    long long total = kernel(x, n);
    fprintf(stderr, "PARFORGE_TIME_S=%.6f\n", now() - t0);

    printf("%lld\n", total);
    free(x);
    return 0;
}
