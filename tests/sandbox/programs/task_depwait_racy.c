#include <stdio.h>
#include <omp.h>

/* An undeferred task waits for the tasks it depends on, here only the one writing `count`;
   `scale` is written by a task with no dependence, which may still run at the print. */
static void step(void) {
    int count = 0, scale = 1;
    #pragma omp task depend(inout: count) shared(count)
    count += 5;
    #pragma omp task shared(scale)
    scale *= 3;
    #pragma omp task depend(in: count) if(0)
    {}
    printf("%d %d\n", count, scale);
    #pragma omp taskwait
}

int main(void) {
    #pragma omp parallel num_threads(4)
    #pragma omp single
    step();
    return 0;
}
