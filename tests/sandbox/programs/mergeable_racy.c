#include <stdio.h>
#include <omp.h>

/* `level` is firstprivate in the mergeable task: a separate task bumps its own copy, a merged
   one bumps the caller's variable, so the value printed depends on the implementation. */
int main(void) {
    int level = 7;
    #pragma omp task mergeable
    {
        level += 2;
    }
    #pragma omp taskwait
    printf("%d\n", level);
    return 0;
}
