#include <stdio.h>
#include <omp.h>

/* The same tasks; `scale`'s task declares its dependence too, and the print is a task that
   depends on both. */
static void step(void) {
    int count = 0, scale = 1;
    #pragma omp task depend(inout: count) shared(count)
    count += 5;
    #pragma omp task depend(inout: scale) shared(scale)
    scale *= 3;
    #pragma omp task depend(in: count, scale) shared(count, scale)
    printf("%d %d\n", count, scale);
    #pragma omp taskwait
}

int main(void) {
    #pragma omp parallel num_threads(4)
    #pragma omp single
    step();
    return 0;
}
