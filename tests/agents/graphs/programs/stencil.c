/* One-dimensional three-point smoothing, repeated. Usage: stencil N STEPS */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    u[0] = v[0] = 100.0;
    for (int s = 0; s < steps; s++) {
        for (int i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + 2.0 * u[i] + u[i + 1]) / 4.0;
        double *t = u;
        u = v;
        v = t;
    }
    printf("%.6f %.6f\n", u[1], u[n / 2]);
    free(u);
    free(v);
    return 0;
}
