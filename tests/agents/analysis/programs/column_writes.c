/* Writes column by column into row-major storage (`a[i + j * n]`, the outer counter the
   column): each iteration of the outer loop owns its column where the column provably stays
   below the row length; near misses where it does not (`i <= n`, a row length of `n - 1` or
   an unrelated `m`) are carried. */
#include <stdio.h>

#define N 301

static long in[N * N], out[N * N], wide[N * N + N], narrow[N * N], other[N * N];

void transpose(int n, long *a, const long *b) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[i + j * n] = 2 * b[j + i * n] + i;
}

void columns(int n) {
    for (int c = 0; c < n; c++) {
        long run = 0;
        for (int r = 0; r < n; r++) {
            run += in[c + r * n];
            out[c + n * r] = run;
        }
    }
}

void past_the_row(int n) {
    for (int i = 0; i <= n; i++)
        for (int j = 0; j < n; j++) wide[i + j * n] = wide[i + j * n] * 3 + i;
}

void shorter_rows(int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) narrow[i + j * (n - 1)] = narrow[i + j * (n - 1)] * 3 + i;
}

void unrelated_rows(int n, int m) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) other[i + j * m] = other[i + j * m] * 3 + i;
}

int main(void) {
    for (int k = 0; k < N * N; k++) in[k] = (k * 7919L) % 13;
    transpose(N, out, in);
    columns(N);
    past_the_row(N - 1);
    shorter_rows(N);
    unrelated_rows(N, N / 2);
    long *arrays[] = {in, out, wide, narrow, other};
    for (int a = 0; a < 5; a++) {
        unsigned long long h = 0;
        for (int k = 0; k < N * N; k++) h = h * 31 + (unsigned long long)arrays[a][k];
        printf("array %d: %llu\n", a, h);
    }
    printf("%ld %ld %ld\n", out[5], wide[N * N - 1], narrow[7]);
    printf("%ld %ld\n", other[N], out[N * N - 2]);
    return 0;
}
