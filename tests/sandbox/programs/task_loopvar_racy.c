#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 64
int main(void) {
    static int out[N + 1];
    #pragma omp parallel
    #pragma omp single
    {
        int i;
        for (i = 0; i < N; i++) {
            #pragma omp task shared(i, out)
            out[i % N] += 1;
        }
        #pragma omp taskwait
    }
    int s = 0;
    for (int k = 0; k < N; k++) s += out[k];
    printf("%d\n", s > 0);
    return 0;
}
