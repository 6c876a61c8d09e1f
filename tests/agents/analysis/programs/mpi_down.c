/* Loops counting down: a map with a signed counter to 0, a sum with an unsigned counter to 1
 * (`j > 0`, its element j - 1: it must not wrap below 0 on any rank), a histogram, rows of a
 * matrix, a triangular loop (uneven: rounds), a loop that does not run, bounds that are not
 * integers (up as well), a narrow counter's first value; and loops counting
 * down whose order matters, which stay on every rank: a search from the top, a last value,
 * a best whose ties go to the first it meets. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int sizes[] = {1, 3, 5, 70, 1001};
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        int *x = malloc(sizeof(int) * n);
        double *y = malloc(sizeof(double) * n);
        long *rows = malloc(sizeof(long) * n * 4);
        for (int i = 0; i < n; i++) x[i] = (i * 7919) % 101 - 50;
        for (int i = n - 1; i >= 0; --i) y[i] = x[i] * 0.5 + i;
        long sum = 0;
        for (size_t j = (size_t)n; j > 0; j--) sum += (long)x[j - 1] * (long)j;
        int bins[4] = {0, 0, 0, 0};
        for (long i = n - 1; i >= 0; i -= 1) bins[(x[i] % 4 + 4) % 4]++;
        for (int i = n - 1; i >= 0; i--)
            for (int c = 0; c < 4; c++) rows[i * 4 + c] = (long)x[i] * c - i;
        double tri = 0;
        for (unsigned i = (unsigned)n; i > 0; --i) {
            double s = 0;
            for (unsigned j = 0; j < i; j++) s += x[j] * 0.25;
            tri += s;
        }
        long none = 3;
        for (int i = -1; i >= 0; i--) none += x[i];
        /* bounds that are not integers: the smallest value a test takes, the largest */
        long half = 0, third = 0;
        for (int i = n - 1; i >= n / 2.0; --i) half += x[i] * (long)i;
        for (int i = 0; i < n / 3.0; i++) third += x[i] * (long)(i + 1);
        unsigned char wrapped = 0; /* 300 as an unsigned char: 44 values */
        for (unsigned char c = (unsigned char)300; c > 0; --c) wrapped ^= (unsigned char)(c * 7);
        int found = -1;
        for (int i = n - 1; i >= 0; i--) {
            if (x[i] > 20) {
                found = i;
                break;
            }
        }
        int last = -1;
        for (int i = n - 1; i >= 0; i--)
            if (x[i] < -20) last = i;
        int best = 1000, at = -1;
        for (int i = n - 1; i >= 0; i--) {
            if (x[i] < best) {
                best = x[i];
                at = i;
            }
        }
        double ysum = 0;
        long rsum = 0;
        for (int i = 0; i < n; i++) ysum += y[i];
        for (int i = 0; i < n * 4; i++) rsum += rows[i] * (i % 7);
        printf("%d: y %.2f sum %ld bins %d %d %d %d rows %ld tri %.2f none %ld\n", n, ysum, sum,
               bins[0], bins[1], bins[2], bins[3], rsum, tri, none);
        printf("%d: found %d last %d best %d at %d\n", n, found, last, best, at);
        printf("%d: half %ld third %ld wrapped %d\n", n, half, third, wrapped);
        free(x);
        free(y);
        free(rows);
    }
    return 0;
}
