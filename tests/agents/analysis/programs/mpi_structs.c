/* Arrays of structs of numbers written by rank blocks (their array members too), and a loop
   before the structs are defined. Usage: mpi_structs [N] */
#include <stdio.h>
#include <stdlib.h>

static void scale(int n, double *w) {
    for (int i = 0; i < n; i++) w[i] = w[i] * 0.5 + i;
}

struct Particle { double x, v[2]; int kind; };
typedef struct { float re, im; struct Particle p; } Sample;
typedef struct Node { long id; struct Node *next; } Node;

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100003;
    struct Particle *ps = malloc(n * sizeof *ps);
    Sample *ss = malloc(n * sizeof *ss);
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        ps[i] = (struct Particle){i * 0.25, {(i % 7) - 3.0, (i % 5) * 0.5}, i % 3};
    for (int i = 0; i < n; i++) {
        ss[i].re = (float)(i % 11);
        ss[i].im = (float)(i % 13) - 6.0f;
        ss[i].p = ps[n - 1 - i];
    }
    for (int i = 0; i < n; i++) w[i] = ps[i].x + ss[i].re;
    for (int i = 0; i < n; i++) {
        ps[i].v[0] += 0.5 * ps[i].x;
        ps[i].v[1] = ps[i].v[0] - ss[i].p.v[1];
    }
    double energy = 0; /* multiples of 1/64 far below 2^53: exact in any order */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) energy += ps[i].v[k] * ps[i].v[k];
    scale(n, w);
    int at[] = {0, 1, n / 3, n / 2, n - 2, n - 1};
    for (int k = 0; k < 6; k++) {
        int i = at[k];
        printf("%d: %.2f %.2f %.2f %d %.1f %.1f %.2f %.2f\n", i, ps[i].x, ps[i].v[0], ps[i].v[1],
               ps[i].kind, ss[i].re, ss[i].im, ss[i].p.x, w[i]);
    }
    printf("%.6f\n", energy);
    Node head = {n, NULL};
    printf("%ld\n", head.id);
    free(ps);
    free(ss);
    free(w);
    return 0;
}
