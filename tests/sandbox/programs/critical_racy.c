#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static int a[N];
    int best = -1;
    for (int i = 0; i < N; i++) a[i] = (i * 7919) % 1009;
    #pragma omp parallel for
    for (int i = 0; i < N; i++) {
        if (a[i] > best) {
            #pragma omp critical
            best = a[i] > best ? a[i] : best;
        }
    }
    printf("%d\n", best);
    return 0;
}
