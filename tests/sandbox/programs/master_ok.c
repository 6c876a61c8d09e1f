#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(void) {
    int base = 0;
    int out[64] = {0};
    #pragma omp parallel
    {
        #pragma omp master
        base = 100;
        #pragma omp barrier
        int t = omp_get_thread_num();
        if (t < 64) out[t] = base + t;
    }
    printf("%d\n", out[0]);
    return 0;
}
