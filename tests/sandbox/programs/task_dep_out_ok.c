#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 256
int main(void) {
    static double buf[N];
    double total = 0;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task depend(out: buf) shared(buf)
        for (int i = 0; i < N; i++) buf[i] = i * 0.5;
        #pragma omp task depend(in: buf) shared(buf, total)
        for (int i = 0; i < N; i++) total += buf[i];
    }
    printf("%.1f\n", total);
    return 0;
}
