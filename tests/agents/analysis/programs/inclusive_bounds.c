/* Scans over 1-based ranges (`i <= n`): prefix sums as recurrences, a running value, an
   exclusive scan and a compaction, counted up to an inclusive bound. */
#include <stdio.h>
#include <stdlib.h>

/* p[0] = 0 and p[i] = x[1] + ... + x[i], for i in 1..n. */
void prefix(const long *x, long *p, int n) {
    p[0] = 0;
    for (int i = 1; i <= n; i++) p[i] = p[i - 1] + x[i];
}

/* A running value over 1..n, and the value before each step. */
long running(const long *x, long *after, long *before, int n) {
    long s = 5;
    for (int i = 1; i <= n; i++) {
        before[i] = s;
        s += x[i] % 11;
        after[i] = s * 2;
    }
    return s;
}

/* The indices in 1..n whose value is odd, packed from out[0]. */
int odd_ones(const long *x, int *out, int n) {
    int k = 0;
    for (int i = 1; i <= n; i++)
        if (x[i] & 1) out[k++] = i;
    return k;
}

int main(void) {
    int sizes[] = {0, 1, 2, 3, 7, 64, 1000, 100003};
    for (int s = 0; s < 8; s++) {
        int n = sizes[s];
        long *x = malloc(sizeof(long) * (n + 1)), *p = malloc(sizeof(long) * (n + 1));
        long *after = malloc(sizeof(long) * (n + 1)), *before = malloc(sizeof(long) * (n + 1));
        int *out = malloc(sizeof(int) * (n + 1));
        for (int i = 0; i <= n; i++) {
            x[i] = (long)((i * 7919) % 1013) - 500;
            p[i] = after[i] = before[i] = -1;
            out[i] = -1;
        }
        prefix(x, p, n);
        long last = running(x, after, before, n);
        int k = odd_ones(x, out, n);
        long check = 0;
        for (int i = 0; i <= n; i++)
            check += p[i] % 1009 + after[i] % 13 - before[i] % 7 + out[i] * (i % 3);
        printf("%d %ld %d %ld\n", n, last, k, check);
        free(x); free(p); free(after); free(before); free(out);
    }
    return 0;
}
