/* Loops whose iterations cost unevenly (triangles, an inner loop of unknown length) and one
   that does not, for the rank rounds of `distribute` and their evolution neighbours. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n = 2003, m = 70;
    double *lower = malloc(sizeof(double) * n);
    long long *upper = malloc(sizeof(long long) * n);
    int *steps = malloc(sizeof(int) * m);
    double total = 0.0;
    long long bits = 0;
    int bins[6] = {0};
    /* L1: a map over a lower triangle */
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < i; j++) s += (double)((i * 31 + j * 7) % 13) * 0.25;
        lower[i] = s;
    }
    /* L3: a map, a sum and a histogram over an upper triangle */
    for (int i = 0; i < n; i++) {
        long long c = 0;
        for (int j = i; j < n; j++) c += (i ^ j) & 3;
        upper[i] = c;
        total += c * 0.5;
        bins[(i * 7) % 6] += (int)(c % 5);
    }
    /* L5: a short loop with an inner loop of unknown length, more rounds than it has parts */
    for (int i = 0; i < m; i++) {
        int x = i + 1, k = 0;
        while (x != 1) {
            x = x % 2 ? 3 * x + 1 : x / 2;
            k++;
        }
        steps[i] = k;
    }
    /* L7: even iterations */
    for (int i = 0; i < n; i++) bits ^= (long long)lower[i] * 2654435761LL + upper[i];
    /* L8: an argmin over a triangle, merged in rank order: one block per rank */
    int best = 0;
    double low = 1e300;
    for (int i = 0; i < n; i++) {
        double d = 0.0;
        for (int j = 0; j < i % 50; j++) d += (double)((i + j) % 11);
        if (d < low) {
            low = d;
            best = i;
        }
    }
    long long sum = 0;
    for (int i = 0; i < m; i++) sum += steps[i];
    printf("total %.2f\n", total);
    printf("bits %lld\n", bits);
    printf("bins %d %d %d %d %d %d\n", bins[0], bins[1], bins[2], bins[3], bins[4], bins[5]);
    printf("lower %.2f %.2f\n", lower[n / 3], lower[n - 1]);
    printf("upper %lld %lld\n", upper[0], upper[n / 2]);
    printf("steps %lld %d\n", sum, steps[m - 1]);
    printf("best %d %.1f\n", best, low);
    free(lower);
    free(upper);
    free(steps);
    return 0;
}
