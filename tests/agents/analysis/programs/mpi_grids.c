/* Arrays of arrays written row by row: a file's own, a function's local, a parameter that
   points to rows; and rows allocated one by one (`double **`), which no byte range gathers.
   Usage: mpi_grids */
#include <stdio.h>
#include <stdlib.h>

#define N 203
#define M 37
static double a[N][M], b[N][M];

static void smooth(int n, double (*out)[M], double (*in)[M]) {
    int i, j;
    for (i = 1; i < n - 1; i++)
        for (j = 0; j < M; j++) out[i][j] = 0.5 * in[i][j] + 0.25 * (in[i - 1][j] + in[i + 1][j]);
}

int main(void) {
    int i, j, s;
    int counts[N][4];
    double **jagged = malloc(N * sizeof *jagged);
    for (i = 0; i < N; i++) jagged[i] = malloc(M * sizeof **jagged);
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) a[i][j] = (i * 31 + j * 17) % 23 - 11.0;
    for (s = 0; s < 3; s++) {
        smooth(N, b, a);
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < M; j++) a[i][j] = b[i][j];
    }
    for (i = 0; i < N; i++)
        for (j = 0; j < 4; j++) counts[i][j] = (int)a[i][j] % 5;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) jagged[i][j] = a[i][j] * 2;
    double total = 0;
    long parity = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) total += a[i][j] + jagged[i][j];
    for (i = 0; i < N; i++) parity += counts[i][i % 4];
    int at[] = {0, 1, N / 2, N - 2, N - 1};
    for (int k = 0; k < 5; k++) printf("%d: %.6f %.6f %d\n", at[k], a[at[k]][0], a[at[k]][M - 1], counts[at[k]][3]);
    printf("%.6f %ld\n", total, parity);
    printf("%d %.6f\n", counts[N / 3][1], b[N / 3][M / 2]);
    for (i = 0; i < N; i++) free(jagged[i]);
    free(jagged);
    return 0;
}
