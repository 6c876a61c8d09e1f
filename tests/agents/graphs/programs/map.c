/* y = a*x + y over generated vectors, then a checksum. Usage: map N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++) {
        x[i] = (i % 17) * 0.25;
        y[i] = (i % 5) * 1.5;
    }
    for (int i = 0; i < n; i++)
        y[i] = 3.0 * x[i] + y[i];
    long check = 0;
    for (int i = 0; i < n; i++)
        check += (long)(y[i] * 4.0);
    printf("%ld\n", check);
    free(x);
    free(y);
    return 0;
}
