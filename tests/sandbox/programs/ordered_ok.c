#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 200
int main(void) {
    long total = 0, trace = 0;
    #pragma omp parallel for ordered schedule(dynamic)
    for (int i = 0; i < N; i++) {
        long v = (long)i * i % 97;
        #pragma omp ordered
        {
            total += v;
            trace = trace * 31 % 1000003 + v;
        }
    }
    printf("%ld %ld\n", total, trace);
    return 0;
}
