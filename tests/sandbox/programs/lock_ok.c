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
        omp_set_lock(&lock);
        if (i % 2 == 0) balance += i;
        else balance -= 1;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    printf("%ld\n", balance);
    return 0;
}
