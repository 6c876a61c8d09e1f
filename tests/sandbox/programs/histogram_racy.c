#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 2000
int main(void) {
    static int a[N];
    int hist[8] = {0};
    for (int i = 0; i < N; i++) a[i] = (i * 31) % 97;
    #pragma omp parallel for
    for (int i = 0; i < N; i++)
        hist[a[i] % 8]++;
    printf("%d\n", hist[0] + hist[7]);
    return 0;
}
