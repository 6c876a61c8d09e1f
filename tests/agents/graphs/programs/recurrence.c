/* A nonlinear recurrence: every element needs the one before it. Usage: recurrence N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double *x = malloc(n * sizeof *x);
    x[0] = 0.5;
    for (int i = 1; i < n; i++)
        x[i] = 3.7 * x[i - 1] * (1.0 - x[i - 1]);
    printf("%.9f\n", x[n - 1]);
    free(x);
    return 0;
}
