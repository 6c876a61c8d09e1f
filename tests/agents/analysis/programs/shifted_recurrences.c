/* Prefix sums written in place and one element on: `a[i] += a[i - 1]`, a CSR row pointer built
   from counts (`rp[i + 1] = rp[i] + count[i]`, and in place, `c[k + 1] += c[k]`), a running
   product in place, a term reading the element's own value; and a loop that reads the next
   element, which is no recurrence. Usage: shifted_recurrences [N] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100003;
    long *a = malloc(n * sizeof *a), *rp = malloc((n + 1) * sizeof *rp);
    long *c = malloc((n + 1) * sizeof *c), *b = malloc(n * sizeof *b), *d = malloc(n * sizeof *d);
    long *e = malloc(n * sizeof *e), *count = malloc(n * sizeof *count);
    double *f = malloc(n * sizeof *f);
    for (int i = 0; i < n; i++) {
        a[i] = (i * 37) % 101 - 50;
        count[i] = (i * 7) % 5;
        b[i] = (i * 13) % 3 == 0 ? -1 : 1;
        d[i] = i % 9 - 4;
        e[i] = i % 4;
        f[i] = (i % 7) * 0.25;
    }
    for (int i = 1; i < n; i++) a[i] += a[i - 1];
    rp[0] = 0;
    for (int i = 0; i < n; ++i) rp[i + 1] = rp[i] + count[i];
    c[0] = 0;
    for (int k = 0; k < n; k++) c[k + 1] = count[k];
    for (int k = 0; k < n; k++) c[k + 1] += c[k];
    for (int i = 1; i < n; i++) b[i] *= b[i - 1];
    for (int i = 1; i < n; i++) d[i] = d[i - 1] + (d[i] * 2 + 1);
    for (int i = 1; i < n; i++) f[i] = f[i] + f[i - 1];
    for (int i = 1; i < n - 1; i++) e[i] = e[i - 1] + e[i + 1];
    unsigned long h = 0;
    for (int i = 0; i < n; i++)
        h = h * 31 + (unsigned long)(a[i] + 3 * rp[i] + 5 * c[i] + 7 * b[i] + 11 * d[i] + e[i]);
    int at[] = {0, 1, 2, n / 3, n / 2, n - 2, n - 1};
    for (int k = 0; k < 7; k++)
        printf("%d: %ld %ld %ld %ld %ld %ld %.2f\n", at[k], a[at[k]], rp[at[k] + 1], c[at[k] + 1],
               b[at[k]], d[at[k]], e[at[k]], f[at[k]]);
    printf("%lu\n", h);
    free(a);
    free(rp);
    free(c);
    free(b);
    free(d);
    free(e);
    free(count);
    free(f);
    return 0;
}
