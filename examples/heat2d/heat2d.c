/* 2-D heat diffusion: Jacobi sweeps of a 5-point stencil on an n x n plate whose top edge is
 * held hot. Prints the total heat and the hottest interior cell after the last sweep.
 * Usage: heat2d N STEPS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int steps = argc > 2 ? atoi(argv[2]) : 100;
    double *u = calloc((size_t)n * n, sizeof *u);
    double *v = calloc((size_t)n * n, sizeof *v);
    for (int j = 0; j < n; j++) u[j] = v[j] = 100.0;

    double t0 = now();
    for (int s = 0; s < steps; s++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                       u[i * n + j - 1] + u[i * n + j + 1]);
        double *t = u; u = v; v = t;
    }
    double total = 0.0, hottest = 0.0;
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            total += u[i * n + j];
            if (u[i * n + j] > hottest) hottest = u[i * n + j];
        }
    fprintf(stderr, "PARFORGE_TIME_S=%.6f\n", now() - t0);

    printf("total %.10e\nhottest %.10e\n", total, hottest);
    free(u);
    free(v);
    return 0;
}
