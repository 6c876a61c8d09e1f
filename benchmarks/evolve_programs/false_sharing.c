/* The naive start of false_sharing: each thread accumulates into its own slot of a shared
 * array, slots on one cache line (correct, but every add invalidates the other's line). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    long long *x = malloc(sizeof(long long) * (size_t)n);
    for (int i = 0; i < n; i++) {
        x[i] = (i * 31) % 1013;
    }
    long long partial[64] = {0};
    for (int r = 0; r < reps; r++) {
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            partial[omp_get_thread_num()] += x[i] * (r + 1);
        }
    }
    long long total = 0;
    for (int t = 0; t < 64; t++) {
        total += partial[t];
    }
    printf("%lld\n", total);
    free(x);
    return 0;
}
