/* Counters whose first value their type does not hold: the loop starts where the counter's
   type wraps it (`unsigned char c = 260` starts at 4, `signed char d = 200` at -56, 300 at
   44). */
#include <stdio.h>

static int y[256], z[256];

int main(void) {
    int sizes[] = {1, 5, 60, 100, 150, 200, 230, 255};
    for (int s = 0; s < 8; s++) {
        int n = sizes[s];
        for (int i = 0; i < 256; i++) y[i] = z[i] = i % 3;
        for (unsigned char c = 260; c < n; c++) y[c] = c * 3;
        for (signed char d = 200; d < n - 150; d++) z[d + 128] = d;
        for (signed char d = 300; d >= n - 100; d--) z[d + 128] += 2 * d;
        long sum = 0;
        for (int i = 0; i < 256; i++) sum += (long)y[i] * (i + 1) + (long)z[i] * (i % 7);
        printf("%d %ld\n", n, sum);
    }
    return 0;
}
