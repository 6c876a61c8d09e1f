#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define R 40
#define C 50
int main(void) {
    static double m[R][C], rowsum[R];
    for (int i = 0; i < R; i++) for (int j = 0; j < C; j++) m[i][j] = i + 0.5 * j;
    #pragma omp parallel for
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            rowsum[i] += m[i][j];
    printf("%.1f\n", rowsum[R - 1]);
    return 0;
}
