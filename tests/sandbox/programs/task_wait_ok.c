#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i % 13; return s; }
int main(void) {
    long r = 0, shown = 0;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task shared(r)
        r = work(20000);
        #pragma omp taskwait
        shown = r;
    }
    printf("%ld\n", shown);
    return 0;
}
