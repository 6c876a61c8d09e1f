/* A sum over a large array, computed n/1000 times over (the reference of false_sharing). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    long long *x = malloc(sizeof(long long) * (size_t)n);
    for (int i = 0; i < n; i++) {
        x[i] = (i * 31) % 1013;
    }
    long long total = 0;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            total += x[i] * (r + 1);
        }
    }
    printf("%lld\n", total);
    free(x);
    return 0;
}
