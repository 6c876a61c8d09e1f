#include <stdio.h>
#include <omp.h>

/* Every thread reaches both barriers of every step: reads of `cur` and writes of it are in
   different phases. */
int main(void) {
    int cur[4] = {0}, next[4] = {0};
    #pragma omp parallel num_threads(4)
    {
        int t = omp_get_thread_num();
        for (int step = 0; step < 3; step++) {
            next[t] = cur[(t + 1) % 4] + 1;
            #pragma omp barrier
            cur[t] = next[t];
            #pragma omp barrier
        }
    }
    printf("%d\n", cur[0]);
    return 0;
}
