/* Counts the primes below N and sums them, in parallel. Usage: primes N */
#include <stdio.h>
#include <stdlib.h>

static int is_prime(long n) {
    if (n < 2) return 0;
    for (long d = 2; d * d <= n; d++)
        if (n % d == 0) return 0;
    return 1;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long count = 0, sum = 0;
    /* Larger numbers take longer to test: dynamic chunks balance the threads. */
    #pragma omp parallel for reduction(+ : count, sum) schedule(dynamic, 512)
    for (long i = 0; i < n; i++)
        if (is_prime(i)) {
            count++;
            sum += i;
        }
    printf("primes below %ld: %ld, sum %ld\n", n, count, sum);
    return 0;
}
