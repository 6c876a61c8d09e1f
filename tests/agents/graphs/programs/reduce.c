/* Sum of squares of a generated sequence. Usage: reduce N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long total = 0;
    for (long i = 0; i < n; i++) {
        long x = (i * 7919) % 1000;
        total += x * x;
    }
    printf("%ld\n", total);
    return 0;
}
