/* Every fold the MPI tool writes, over int and double data, at sizes around the rank counts. */
#include <stdio.h>
#include <stdlib.h>

static void folds(int n, const int *v, const double *d) {
    long sum = 7;
    unsigned long prod = 1;
    double fsum = 0.5, fmin = 1e300, fmax = -1e300;
    int imin = 1000, imax = -1000;
    unsigned band = 0xffffffffu, bor = 0, bxor = 0;
    int land = 1, lor = 0;
    for (int i = 0; i < n; i++) {
        sum += v[i];
        prod *= (v[i] % 3) + 1;
        fsum += d[i] * d[i];
        if (d[i] < fmin) fmin = d[i];
        if (d[i] > fmax) fmax = d[i];
        imin = v[i] < imin ? v[i] : imin;
        imax = v[i] > imax ? v[i] : imax;
        band &= (unsigned)v[i] | 0x10u;
        bor |= (unsigned)v[i];
        bxor ^= (unsigned)v[i] * 2654435761u;
        land = land && v[i] >= 0;
        lor = lor || v[i] == 12;
    }
    int bins[8] = {0};
    for (int i = 0; i < n; i++) bins[(v[i] + 8) % 8]++;
    printf("%d %d ", bins[0], bins[7]);
    printf("%ld %lu %.6f %.3f %.3f %d %d %u %u %u %d %d\n", sum, prod % 1000003, fsum, fmin,
           fmax, imin, imax, band, bor, bxor, land, lor);
}

static void bests(int n, const int *v) {
    int lo = 99, at = -1, hi = -99, hat = -2, tie = 99, tat = -3;
    for (int i = 0; i < n; i++) {
        if (v[i] < lo) { lo = v[i]; at = i; }
    }
    for (int i = 0; i < n; i++) {
        if (v[i] >= hi) { hi = v[i]; hat = i; }
    }
    for (int i = 0; i < n; i++) {
        if (v[i] <= tie) { tie = v[i]; tat = i; }
    }
    printf("%d %d %d %d %d %d\n", lo, at, hi, hat, tie, tat);
}

static void maps(int n, const int *v, double *out, double *rows, int *hist) {
    for (int i = 0; i < n; i++) out[i] = v[i] * 0.5;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) rows[i * 3 + j] = v[i] + j;
    for (int k = 0; k < 8; k++) hist[k] = k;
    for (int i = 0; i < n; i++) hist[(v[i] + 8) % 8] += 2;
    int i;
    double last = -1;
    for (i = 0; i <= n - 1; i++) { last = out[i] + 1; out[i] = last * 2; }
    printf("%d %.1f %.1f %.1f %d %d\n", i, last, n ? out[n - 1] : 0.0, n ? rows[3 * n - 1] : 0.0,
           hist[0], hist[7]);
}

int main(void) {
    int sizes[] = {0, 1, 2, 3, 5, 7, 100, 1001};
    for (int s = 0; s < 8; s++) {
        int n = sizes[s];
        int *v = malloc((n + 1) * sizeof *v);
        double *d = malloc((n + 1) * sizeof *d), *out = malloc((n + 1) * sizeof *out);
        double *rows = malloc((3 * n + 1) * sizeof *rows);
        int hist[8];
        for (int i = 0; i < n; i++) {
            v[i] = (i * 37 + 11) % 23 - (i % 5 == 4 ? 1 : 0);
            d[i] = (double)((i * 7919) % 1000) / 250.0 - 2.0;
        }
        folds(n, v, d);
        bests(n, v);
        maps(n, v, out, rows, hist);
        free(v); free(d); free(out); free(rows);
    }
    return 0;
}
