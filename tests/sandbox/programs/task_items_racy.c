#include <stdio.h>
#include <omp.h>

/* Three producers and two consumers: the consumers name only the producer they read, not the
   total they both add into, so nothing orders them with each other or with the first task. */
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
        #pragma omp task depend(in: left)
        total += left;
        #pragma omp task depend(in: right)
        total += right;
        #pragma omp task depend(in: total)
        report = total;
    }
    printf("%d\n", report);
    return 0;
}
