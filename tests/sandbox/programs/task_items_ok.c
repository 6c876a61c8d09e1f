#include <stdio.h>
#include <omp.h>

/* The same producers; the consumers update the total as mutexinoutset: each runs after the first
   task, they exclude each other, and the report waits for both. */
int main(void) {
    int total = 0, left = 0, right = 0, report = 0;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task depend(out: total)
        total = 10;
        #pragma omp task depend(out: left)
        left = 3;
        #pragma omp task depend(out: right)
        right = 4;
        #pragma omp task depend(in: left) depend(mutexinoutset: total)
        total += left;
        #pragma omp task depend(in: right) depend(mutexinoutset: total)
        total += right;
        #pragma omp task depend(in: total)
        report = total;
    }
    printf("%d\n", report);
    return 0;
}
