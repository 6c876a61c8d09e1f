#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 4000
int main(void) {
    static int a[N];
    long part[4] = {0};
    for (int i = 0; i < N; i++) a[i] = i % 9;
    #pragma omp parallel
    {
        int slot = omp_get_thread_num() % 4;
        #pragma omp for
        for (int i = 0; i < N; i++) part[slot] += a[i];
    }
    printf("%ld\n", part[0] + part[1] + part[2] + part[3]);
    return 0;
}
