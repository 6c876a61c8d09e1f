#include <stdio.h>
#include <omp.h>

/* The same task with `level` shared: merged or not, it updates the caller's variable, and the
   taskwait orders the read after it. */
int main(void) {
    int level = 7;
    #pragma omp task mergeable shared(level)
    {
        level += 2;
    }
    #pragma omp taskwait
    printf("%d\n", level);
    return 0;
}
