#include <stdio.h>
#include <omp.h>

/* The same flag raised with a release write: the acquire read pairs with it. */
int main(void) {
    int payload = 0, ready = 0, seen = -1;
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            #pragma omp critical
            payload = 42;
            #pragma omp atomic write release
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
