/* Prefix sums of a generated sequence; prints a few of them. Usage: scan N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    long *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++)
        x[i] = (i * 31) % 97;
    long running = 0;
    for (int i = 0; i < n; i++) {
        running += x[i];
        x[i] = running;
    }
    printf("%ld %ld %ld\n", x[0], x[n / 2], x[n - 1]);
    free(x);
    return 0;
}
