#include <stdio.h>
#include <omp.h>

/* Thread 0 skips the barrier of the first step (and makes it up after the loop), so in between
   its barriers pair with the other threads' barriers of the step before: it reads `cur` while
   they still write it. */
int main(void) {
    int cur[4] = {0}, next[4] = {0};
    #pragma omp parallel num_threads(4)
    {
        int t = omp_get_thread_num();
        for (int step = 0; step < 3; step++) {
            next[t] = cur[(t + 1) % 4] + 1;
            if (!(t == 0 && step == 0)) {
                #pragma omp barrier
            }
            cur[t] = next[t];
            #pragma omp barrier
        }
        if (t == 0) {
            #pragma omp barrier
        }
    }
    printf("%d\n", cur[0] >= 1);
    return 0;
}
