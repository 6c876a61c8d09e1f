#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    omp_lock_t lock;
    long balance = 0;
    omp_init_lock(&lock);
    #pragma omp parallel for
    for (int i = 0; i < N; i++) {
        if (i % 2 == 0) {
            omp_set_lock(&lock);
            balance += i;
            omp_unset_lock(&lock);
        } else {
            balance -= 1;
        }
    }
    omp_destroy_lock(&lock);
    printf("%ld\n", balance);
    return 0;
}
