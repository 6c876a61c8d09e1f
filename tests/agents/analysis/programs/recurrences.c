/* Prefix sums and a running product written as recurrences, each loop one statement without
   braces (as C programs often write them). Usage: recurrences [N] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100003;
    long *x = malloc(n * sizeof *x), *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
    double *r = malloc(n * sizeof *r);
    for (int i = 0; i < n; i++) x[i] = (i * 37) % 101 - 50;
    p[0] = x[0];
    for (int i = 1; i < n; i++) p[i] = p[i - 1] + x[i];
    for (int i = 0; i < n; i++)
        if (i == 0) q[i] = 1; else q[i] = q[i - 1] * (x[i] % 2 ? -1 : 1);
    r[0] = 0.5;
    for (int i = 1; i < n; i++) r[i] = (x[i] > 0 ? 1.0 : 0.0) + r[i - 1];
    unsigned long h = 0;
    for (int i = 0; i < n; i++) h = h * 31 + (unsigned long)(p[i] + 7 * q[i] + (long)r[i]);
    int at[] = {0, 1, 2, n / 3, n / 2, n - 2, n - 1};
    for (int k = 0; k < 7; k++) printf("%d: %ld %ld %.1f\n", at[k], p[at[k]], q[at[k]], r[at[k]]);
    printf("%lu\n", h);
    free(x);
    free(p);
    free(q);
    free(r);
    return 0;
}
