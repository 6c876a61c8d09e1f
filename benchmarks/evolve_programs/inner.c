/* A stencil: parallelising each row (the inner loop) opens a parallel region per row and
 * step; the outer loop is where the work is. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rows = argc > 1 ? atoi(argv[1]) : 1000;
    int steps = argc > 2 ? atoi(argv[2]) : 2;
    int cols = argc > 3 ? atoi(argv[3]) : 48;
    long long *a = malloc(sizeof(long long) * (size_t)rows * cols);
    long long *b = malloc(sizeof(long long) * (size_t)rows * cols);
    for (int k = 0; k < rows * cols; k++) {
        a[k] = (k * 7919) % 1000;
        b[k] = 0;
    }
    for (int s = 0; s < steps; s++) {
        for (int i = 1; i < rows - 1; i++) {
            for (int j = 1; j < cols - 1; j++) {
                b[i * cols + j] = (a[(i - 1) * cols + j] + a[(i + 1) * cols + j] +
                                   a[i * cols + j - 1] + a[i * cols + j + 1]) % 1009;
            }
        }
        long long *t = a;
        a = b;
        b = t;
    }
    long long total = 0;
    for (int k = 0; k < rows * cols; k++) {
        total += a[k];
    }
    printf("%lld\n", total);
    free(a);
    free(b);
    return 0;
}
