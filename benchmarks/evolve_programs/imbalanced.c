/* Triangular work: row i costs i inner iterations, so a static schedule leaves the last
 * thread with most of it. Prints a checksum of every row. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    long long *row = malloc(sizeof(long long) * (size_t)n);
    for (int i = 0; i < n; i++) {
        long long acc = 0;
        for (int j = 0; j < i; j++) {
            acc += ((long long)i * j) % 7 + (i ^ j) % 5;
        }
        row[i] = acc;
    }
    long long total = 0;
    for (int i = 0; i < n; i++) {
        total += row[i] % 1000003;
    }
    printf("%lld %lld\n", total, row[n - 1]);
    free(row);
    return 0;
}
