#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 100
int main(void) {
    static double m[N][N];
    int i, j;
    #pragma omp parallel for
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            m[i][j] = i + j;
    printf("%.1f\n", m[N - 1][N - 1]);
    return 0;
}
