#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 120
int main(void) {
    static double A[N][N], x[N], y[N];
    for (int i = 0; i < N; i++) { x[i] = 1.0 / (i + 1); for (int j = 0; j < N; j++) A[i][j] = i - j; }
    #pragma omp parallel for
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int j = 0; j < N; j++) s += A[i][j] * x[j];
        y[i] = s;
    }
    printf("%.4f\n", y[N - 1]);
    return 0;
}
