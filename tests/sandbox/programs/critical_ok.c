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
        #pragma omp critical
        {
            if (a[i] > best) best = a[i];
        }
    }
    printf("%d\n", best);
    return 0;
}
