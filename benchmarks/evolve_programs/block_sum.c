/* The sequential reference of block_sum.cu: the sum of 2i + 1 for i < n, twenty times. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double s = 0;
    for (int rep = 0; rep < 20; rep++) {
        s = 0;
        for (long i = 0; i < n; i++) s += 2.0 * (double)i + 1.0;
    }
    printf("%.1f\n", s);
    return 0;
}
