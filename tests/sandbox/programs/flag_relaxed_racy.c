#include <stdio.h>
#include <omp.h>

/* Thread 0 publishes `payload` and raises `ready` with a relaxed atomic write: the acquire read
   on the other side has no release to pair with, so it does not order the payload. */
int main(void) {
    int payload = 0, ready = 0, seen = -1;
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            #pragma omp critical
            payload = 42;
            #pragma omp atomic write
            ready = 1;
        } else {
            int go = 0;
            while (!go) {
                #pragma omp atomic read acquire
                go = ready;
            }
            #pragma omp critical
            seen = payload;
        }
    }
    printf("%d\n", seen == 42 || seen == -1);
    return 0;
}
