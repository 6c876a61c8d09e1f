#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(void) {
    unsigned seed = 12345u;
    unsigned out[64] = {0};
    #pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int k = 0; k < 100; k++)
            seed = seed * 1103515245u + 12345u + (unsigned)t;
        if (t < 64) out[t] = seed;
    }
    printf("%u\n", out[0] % 100u);
    return 0;
}
