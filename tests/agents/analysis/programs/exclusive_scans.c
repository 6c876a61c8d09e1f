/* Exclusive scans: each iteration reads the running value before its own step. */
#include <stdio.h>
#include <stdlib.h>

/* Offsets of variable-length rows (a CSR row pointer from counts). */
long offsets(const int *count, long *start, int n) {
    long next = 0;
    for (int i = 0; i < n; i++) {
        start[i] = next;
        next += count[i];
    }
    return next;
}

/* A local term, the value before it stored twice. */
void weighted(const int *x, long *before, long *after, int n) {
    long run = 3;
    for (int i = 0; i < n; i++) {
        long term = 2 * (long)x[i] - 1;
        before[i] = run;
        after[i] = run * 10 + (i % 3);
        run += term;
    }
}

/* An exclusive running product. */
void scales(const int *x, double *scale, int n) {
    double p = 1.0;
    for (int i = 0; i < n; i++) {
        scale[i] = p;
        p *= (x[i] % 2 ? 1.0 : 0.5);
    }
}

/* The value before the step, then after it (both sides of one update). */
int both_sides(const int *x, int *lo, int *hi, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        lo[i] = s;
        s += x[i] % 7;
        hi[i] = s;
    }
    return s;
}

/* The value before the step kept in a local, stored after it. */
void kept(const int *x, long *out, int n) {
    long acc = -4;
    for (int i = 0; i < n; i++) {
        long was = acc;
        acc += x[i] & 15;
        out[i] = was * 2 + (i & 1);
    }
}

/* Near misses: none of these is a scan. */
int near_misses(int *x, int *e, int n) {
    unsigned a = 0, c = 0; /* they double each step: unsigned, so they wrap */
    int b = 0;
    for (int i = 0; i < n; i++) {
        unsigned t = a; /* the step reads what the value before it was */
        a += (unsigned)x[i] + t;
    }
    for (int i = 0; i < n; i++) {
        if (b > 50) continue; /* a read that decides whether the step runs */
        b += x[i];
    }
    for (int i = 0; i < n; i++) {
        e[i] = (int)(c % 1000u); /* the step reads what the read stored */
        c += (unsigned)e[i] + (unsigned)x[i];
    }
    return (int)((a + c) % 100000u) + b;
}

/* The value before the step kept in a local that statements before the step read. */
long carried(const int *x, long *out, int n) {
    long acc = 1;
    for (int i = 0; i < n; i++) {
        long prev = acc;
        out[i] = prev * 3 + (prev & 1);
        acc += x[i] % 5;
    }
    return acc;
}

int main(void) {
    int sizes[] = {1, 2, 3, 7, 64, 1000, 100003};
    for (int s = 0; s < 7; s++) {
        int n = sizes[s];
        int *x = malloc(sizeof(int) * n), *lo = malloc(sizeof(int) * n);
        int *hi = malloc(sizeof(int) * n), *e = malloc(sizeof(int) * n);
        long *start = malloc(sizeof(long) * n), *before = malloc(sizeof(long) * n);
        long *after = malloc(sizeof(long) * n), *was = malloc(sizeof(long) * n);
        long *kept3 = malloc(sizeof(long) * n);
        double *scale = malloc(sizeof(double) * n);
        for (int i = 0; i < n; i++) x[i] = (i * 7919) % 1013 - 500;
        long total = offsets(x, start, n);
        weighted(x, before, after, n);
        scales(x, scale, n);
        int last = both_sides(x, lo, hi, n);
        kept(x, was, n);
        int misses = near_misses(x, e, n);
        long carry = carried(x, kept3, n);
        double check = 0;
        for (int i = 0; i < n; i++)
            check += start[i] * (i % 5) + before[i] - after[i] % 11 + scale[i] * 1e3 +
                     lo[i] * (i % 3) - hi[i] + e[i] % 13 + was[i] % 17 +
                     kept3[i] % 19;
        printf("%d %ld %d %d %ld %.3f\n", n, total, last, misses, carry, check);
        free(x); free(lo); free(hi); free(e); free(start); free(before); free(after); free(scale);
        free(was); free(kept3);
    }
    return 0;
}
