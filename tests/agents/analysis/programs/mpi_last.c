/* Conditional last values: the last index a test keeps, the last value it keeps (a double, so
 * the rank that had it must send it), a last match in a triangular loop (uneven: rounds), and
 * searches that find nothing (the value before the loop stays), and iterations below zero (a
 * last assignment at -1 is one). */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int sizes[] = {1, 3, 5, 70, 1001};
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        int *x = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) x[i] = (i * 7919) % 101 - 50;
        int last = -1;
        for (int i = 0; i < n; i++)
            if (x[i] > 20) last = i;
        double value = 0.5;
        for (int i = 0; i < n; i++) {
            if (x[i] % 3 == 0) value = x[i] * 1.25 + i;
        }
        long far = 7;
        for (int i = 0; i < n; i++) {
            long s = 0;
            for (int j = 0; j < i; j++) s += x[j];
            if (s % 5 == 1) far = i * 1000L + s;
        }
        int none = 42;
        for (int i = 0; i < n; i++)
            if (x[i] > 1000) none = i;
        int below = 99;
        for (int d = -n; d < n; d++)
            if (x[(d + n) / 2] > 10 && d < 0) below = d;
        printf("%d: last %d value %.3f far %ld none %d below %d\n", n, last, value, far, none,
               below);
        printf("%d: again %d\n", n, last + none);
        free(x);
    }
    return 0;
}
