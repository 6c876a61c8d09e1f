#include <stdio.h>
#include <omp.h>

/* The same updates under one lock name. */
int main(void) {
    long balance = 1000;
    #pragma omp parallel for num_threads(4)
    for (int i = 0; i < 1000; i++) {
        if (i % 2 == 0) {
            #pragma omp critical(ledger)
            balance += 3;
        } else {
            #pragma omp critical(ledger)
            balance -= 1;
        }
    }
    printf("%ld\n", balance);
    return 0;
}
