#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 4000
int main(void) {
    static int a[N];
    int slots = omp_get_max_threads();
    long *part = calloc((size_t)slots, sizeof *part);
    long total = 0;
    for (int i = 0; i < N; i++) a[i] = i % 9;
    #pragma omp parallel
    {
        int slot = omp_get_thread_num();
        #pragma omp for
        for (int i = 0; i < N; i++) part[slot] += a[i];
    }
    for (int k = 0; k < slots; k++) total += part[k];
    printf("%ld\n", total);
    free(part);
    return 0;
}
