#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define R 64
#define C 128
int main(void) {
    static double m[R][C];
    for (int i = 0; i < R; i++) for (int j = 0; j < C; j++) m[i][j] = (i + j) % 5;
    #pragma omp parallel for
    for (int i = 0; i < R; i++) {
        #pragma omp simd
        for (int j = 1; j < C; j++)
            m[i][j] = m[i][j] + m[i][j - 1];
    }
    printf("%.1f\n", m[R - 1][C - 1]);
    return 0;
}
