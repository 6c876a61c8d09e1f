#include <stdio.h>
#include <omp.h>

#define N 64
float src[N], mid[N];

/* The same two loops as two target teams regions: the first ends before the second starts. */
int main(void) {
    for (int i = 0; i < N; i++) src[i] = (float)i;
    #pragma omp target teams distribute num_teams(4) map(tofrom: src[0:N], mid[0:N])
    for (int i = 0; i < N; i++)
        mid[i] = src[i] * 2.0f;
    #pragma omp target teams distribute num_teams(4) map(tofrom: src[0:N], mid[0:N])
    for (int i = N - 1; i >= 0; i--)
        src[i] = mid[N - 1 - i] + 1.0f;
    printf("%.1f\n", src[0]);
    return 0;
}
