#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 64
int main(void) {
    static int out[N];
    #pragma omp parallel
    #pragma omp single
    {
        for (int i = 0; i < N; i++) {
            #pragma omp task shared(out)
            out[i] += 1;
        }
        #pragma omp taskwait
    }
    int s = 0;
    for (int k = 0; k < N; k++) s += out[k];
    printf("%d\n", s);
    return 0;
}
