#include <stdio.h>
#include <omp.h>

/* Deposits and withdrawals each take their own named lock: the two locks do not exclude each
   other, so a deposit and a withdrawal update `balance` at once. */
int main(void) {
    long balance = 1000;
    #pragma omp parallel for num_threads(4)
    for (int i = 0; i < 1000; i++) {
        if (i % 2 == 0) {
            #pragma omp critical(deposits)
            balance += 3;
        } else {
            #pragma omp critical(withdrawals)
            balance -= 1;
        }
    }
    printf("%ld\n", balance);
    return 0;
}
