/* A map, a sum with a histogram, a stencil, rows of a matrix and an argmin. Usage: mixed N */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    double *m = malloc((size_t)n * 8 * sizeof *m);
    int h[16] = {0};
    for (int i = 0; i < n; i++) a[i] = (i * 7919) % 1000 / 1000.0;
    double s = 0, best = 1e300; int at = -1;
    for (int i = 0; i < n; i++) { s += a[i] * a[i]; h[(i * 31) % 16]++; }
    for (int i = 1; i < n - 1; i++) b[i] = (a[i-1] + a[i] + a[i+1]) / 3;
    for (int i = 0; i < n; i++) for (int j = 0; j < 8; j++) m[i * 8 + j] = a[i] * j;
    for (int i = 0; i < n; i++) if (a[i] < best) { best = a[i]; at = i; }
    printf("%.6f %d %.3f %d %.3f %.3f\n", s, h[3], best, at, b[n/2], m[8*n-1]);
    return 0;
}
