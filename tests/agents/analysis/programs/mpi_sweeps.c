/* Stencil sweeps between two buffers swapped each step, for the halo exchange: a 1-D
 * three-point and five-point stencil, a 2-D five-point one by rows, and two that must keep
 * gathering every sweep (a copy back instead of a swap, a loop test that reads a buffer).
 * A Jacobi sweep to convergence reduces its residual each sweep (halo 1). Then the shapes a
 * review found: an upwind scheme writing one row ahead of a read two rows
 * behind (halo 2), an unbraced if/else around the sweeps, and sweeps whose range the loop's
 * header moves, whose test reads a buffer under another name, or whose bound the header
 * declares (these three gather every sweep). Each runs on sizes below, at and above the rank
 * counts, so some blocks are shorter than the halo. */
#include <stdio.h>
#include <stdlib.h>

static double sum(const double *a, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += a[k] * (k % 7 + 1);
    return s;
}

static void sweeps1(int n, int steps) {
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    for (int k = 0; k < n; k++) u[k] = v[k] = (k * 37 % 11) - 3.0;
    for (int s = 0; s < steps; s++) {
        for (int i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + 2.0 * u[i] + u[i + 1]) / 4.0;
        double *t = u;
        u = v;
        v = t;
    }
    printf("three-point %d: %.12e %.12e\n", n, sum(u, n), sum(v, n));
    free(u);
    free(v);
}

static void sweeps2(int n, int steps) {
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    for (int k = 0; k < n; k++) u[k] = v[k] = (k * 13 % 17) * 0.5;
    for (int s = 0; s < steps; s++) {
        for (int i = 2; i < n - 2; i++)
            v[i] = 0.1 * u[i - 2] + 0.2 * u[i - 1] + 0.4 * u[i] + 0.2 * u[i + 1] + 0.1 * u[i + 2];
        double *t = v;
        v = u;
        u = t;
    }
    printf("five-point %d: %.12e %.12e\n", n, sum(u, n), sum(v, n));
    free(u);
    free(v);
}

static void plate(int n, int steps) {
    double *u = calloc((size_t)n * n, sizeof *u), *v = calloc((size_t)n * n, sizeof *v);
    for (int j = 0; j < n; j++) u[j] = v[j] = 100.0;
    for (int k = n; k < n * n; k++) u[k] = v[k] = k % 5;
    int s = 0;
    while (s < steps) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                       u[i * n + j - 1] + u[i * n + j + 1]);
        double *t = u;
        u = v;
        v = t;
        s++;
    }
    printf("plate %d: %.12e %.12e\n", n, sum(u, n * n), sum(v, n * n));
    free(u);
    free(v);
}

static void copied(int n, int steps) {
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    for (int k = 0; k < n; k++) u[k] = v[k] = k % 3;
    for (int s = 0; s < steps; s++) {
        for (int i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + u[i + 1]) / 2.0;
        for (int i = 1; i < n - 1; i++)
            u[i] = v[i];
    }
    printf("copied %d: %.12e\n", n, sum(u, n));
    free(u);
    free(v);
}

static void watched(int n) {
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    for (int k = 0; k < n; k++) u[k] = v[k] = k == n / 2 ? 1000.0 : 0.0;
    for (int s = 0; s < 50 && u[n / 2] > 10.0; s++) {
        for (int i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
        double *t = u;
        u = v;
        v = t;
    }
    printf("watched %d: %.12e\n", n, sum(u, n));
    free(u);
    free(v);
}

static void upwind(int n, int steps) {
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    for (int k = 0; k < n; k++) u[k] = v[k] = (k * 7 % 13) * 1.5;
    if (steps > 0)
        for (int s = 0; s < steps; s++) {
            for (int i = 1; i < n - 1; i++)
                v[i + 1] = u[i + 1] - 0.2 * (3.0 * u[i + 1] - 4.0 * u[i] + u[i - 1]);
            double *t = u;
            u = v;
            v = t;
        }
    else
        printf("no sweeps\n");
    printf("upwind %d: %.12e %.12e\n", n, sum(u, n), sum(v, n));
    free(u);
    free(v);
}

static void moving(int n, int steps) {
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    for (int k = 0; k < n; k++) a[k] = b[k] = k % 4;
    double *u = a, *v = b;
    int m = n - 1;
    for (int s = 0; s < steps; s++, m -= 7) {
        for (int i = 1; i < m; i++)
            v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
        double *t = u;
        u = v;
        v = t;
    }
    for (int s = 0; s < 60 && a[n / 2] < 1e9; s++) {
        for (int i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + 1.5 * u[i] + u[i + 1]) / 3.0;
        double *t = u;
        u = v;
        v = t;
    }
    for (int s = 0, last = n - 1; s < steps; s++) {
        for (int i = 1; i < last; i++)
            v[i] = (u[i - 1] + u[i + 1]) / 2.0;
        double *t = u;
        u = v;
        v = t;
    }
    printf("moving %d: %.12e %.12e\n", n, sum(a, n), sum(b, n));
    free(a);
    free(b);
}

static void converge(int n) {
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    u[0] = v[0] = 1.0;
    u[n - 1] = v[n - 1] = -1.0;
    double change = 1.0;
    int sweeps = 0;
    while (change > 1e-3 && sweeps < 400) {
        change = 0.0;
        for (int i = 1; i < n - 1; i++) {
            v[i] = 0.5 * (u[i - 1] + u[i + 1]);
            change += v[i] > u[i] ? v[i] - u[i] : u[i] - v[i];
        }
        double *t = u;
        u = v;
        v = t;
        sweeps++;
    }
    printf("converge %d: %d sweeps %.12e\n", n, sweeps, sum(u, n));
    free(u);
    free(v);
}

int main(void) {
    int sizes[] = {3, 5, 9, 70, 301};
    for (int k = 0; k < 5; k++) {
        sweeps1(sizes[k], 7);
        sweeps2(sizes[k], 6);
        plate(sizes[k] < 70 ? sizes[k] : 40, 5);
        copied(sizes[k], 4);
        watched(sizes[k]);
        upwind(sizes[k], k % 2 ? 6 : 0);
        moving(sizes[k], 5);
        converge(sizes[k] < 100 ? sizes[k] : 100);
    }
    return 0;
}
