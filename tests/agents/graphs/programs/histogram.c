/* Counts of a generated sequence in 16 bins. Usage: histogram N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++)
        x[i] = (int)(((long)i * 7919) % 1000);
    long bins[16] = {0};
    for (int i = 0; i < n; i++)
        bins[x[i] % 16]++;
    for (int b = 0; b < 16; b++)
        printf("%ld%c", bins[b], b == 15 ? '\n' : ' ');
    free(x);
    return 0;
}
