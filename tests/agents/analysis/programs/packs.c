/* Stream compactions: elements packed into an array at a counter the iterations that store
   count up by one (`if (c) y[k++] = e;`, `{ z[k] = v; w[k] = i * v; ++k; }`, in an `else`,
   after a `continue`, through pointer parameters that must not overlap), the counter read
   after the loop; and packs that are none: in place (`x[k++] = x[i]` reads what another
   iteration stores) and a store every iteration whose counter moves only on some.
   Usage: packs [N] */
#include <stdio.h>
#include <stdlib.h>

static int pack(const int *x, int *y, int n) {
    int k = 0;
    for (int i = 0; i < n; i++)
        if (x[i] % 3 == 0) y[k++] = x[i] * 2;
    return k;
}

static long pack_pairs(const int *x, int *z, long *w, int n, long k) {
    for (int i = 0; i < n; i++) {
        int v = x[i] + 1;
        if (v > 0) {
            z[k] = v;
            w[k] = (long)i * v;
            ++k;
        }
    }
    return k;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200003;
    int *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc((n + 5) * sizeof *z);
    long *w = malloc((n + 5) * sizeof *w);
    double *d = malloc(n * sizeof *d);
    int *u = malloc(n * sizeof *u), *s = malloc(n * sizeof *s);
    for (int i = 0; i < n; i++) x[i] = (int)(((long)i * 7919) % 1009) - 500;
    int m = pack(x, y, n);
    long k = pack_pairs(x, z, w, n, 5);
    size_t c = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 100) {
            continue;
        }
        if (x[i] < -400) {
        } else {
            d[c++] = x[i] * 0.5;
        }
    }
    for (int i = 0; i < n; i++) u[i] = x[i];
    int e = 0;
    for (int i = 0; i < n; i++)
        if (u[i] % 2 != 0) u[e++] = u[i];
    int t = 0;
    for (int i = 0; i < n; i++) {
        s[t] = x[i];
        t += x[i] > 0;
    }
    printf("%d %ld %zu %d %d\n", m, k, c, e, t);
    unsigned long h = 0;
    for (int i = 0; i < m; i++) h = h * 31 + (unsigned)y[i];
    printf("y %lu\n", h);
    for (long i = 5; i < k; i++) h = h * 31 + (unsigned)z[i] + (unsigned long)w[i];
    printf("z w %lu\n", h);
    for (size_t i = 0; i < c; i++) h = h * 31 + (unsigned long)(long)(d[i] * 2);
    printf("d %lu\n", h);
    for (int i = 0; i < e; i++) h = h * 31 + (unsigned)u[i];
    printf("u %lu\n", h);
    for (int i = 0; i < t; i++) h = h * 31 + (unsigned)s[i];
    printf("s %lu\n", h);
    printf("%d %d %d\n", m > 0 ? y[m - 1] : 0, (int)z[k - 1], c > 0 ? (int)d[c / 2] : 0);
    free(x);
    free(y);
    free(z);
    free(w);
    free(d);
    free(u);
    free(s);
    return 0;
}
