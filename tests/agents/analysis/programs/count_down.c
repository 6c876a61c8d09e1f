/* Loops that count down (and one up to an inclusive bound): a map, a sum over an unsigned
   counter stopping above 0, a histogram, and a scan, which keeps its order on the host. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n = 200000;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    int bins[8] = {0};
    double sum = 0.0;
    for (int i = n - 1; i >= 0; i--) a[i] = (double)(i % 97) / 7.0;
    for (size_t i = (size_t)n; i > 0; --i) sum += a[i - 1] * (double)i;
    for (long i = n - 1; i >= 0; i -= 1) bins[(int)a[i] % 8]++;
    for (int i = 1; i <= n - 1; i++) b[i] = a[i] - a[i - 1];
    for (int i = n - 2; i >= 0; i--) a[i] = a[i] + a[i + 1];
    printf("%.3f %d %.3f %.3f\n", sum, bins[3], b[n / 2], a[0]);
    free(a);
    free(b);
    return 0;
}
