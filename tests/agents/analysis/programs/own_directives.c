/* A program that already has directives: OpenMP on some loops and around others, loop hints,
   and loops with none. Only the last get the annotator's directives; every loop the program
   already governs is left as written. */
#include <stdio.h>

#define N 100003

static double a[N], b[N], c[N];
static long bins[16];

int main(void) {
    double s = 0.0;
    long most = 0;
    #pragma omp parallel for
    for (int i = 0; i < N; i++) a[i] = (i % 97) * 0.5;
    /* the program's own reduction */
    #pragma omp parallel for reduction(+:s)
    // a comment between a directive and its loop
    for (int i = 0; i < N; i++) s += a[i];
    #pragma omp parallel
    {
        long mine = 0;
        #pragma omp for
        for (int i = 0; i < N; i++) b[i] = a[i] + 1.0;
        #pragma omp barrier
        /* every thread of the region runs this loop, each into its own total */
        for (int i = 0; i < 1000; i++) mine += i % 7;
        #pragma omp critical
        if (mine > most) most = mine;
    }
    #pragma GCC ivdep
    for (int i = 0; i < N; i++) c[i] = a[i] * b[i];
    #pragma GCC unroll 4
    for (int i = 0; i < N; i++) c[i] += 1.0;
    #pragma GCC diagnostic ignored "-Wunused-variable"
    for (int i = 0; i < N; i++) bins[i % 16] += 1;
    long odd = 0;
    for (int i = 0; i < N; i++) odd += (long)c[i] % 2;
    printf("sum %.1f\nmost %ld\nbin 3 %ld\nodd %ld\n", s, most, bins[3], odd);
    for (int k = 1; k < N; k *= 10) printf("at %d: %.1f %.1f %.1f\n", k, a[k], b[k], c[k]);
    return 0;
}
