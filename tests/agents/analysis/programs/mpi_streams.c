/* A program that prints more than a small buffer holds and checks its output stream at the
   end: ranks other than 0 write where it never fails, so they end as rank 0 does. */
#include <stdio.h>

#define N 100003

static long a[N];

int main(void) {
    for (int i = 0; i < N; i++) a[i] = (i * 7919L) % 1009;
    long s = 0;
    for (int i = 0; i < N; i++) s += a[i];
    for (int k = 0; k < 40; k++) printf("line %d of the report: the sum is %ld\n", k, s + k);
    if (ferror(stdout) || fflush(stdout) != 0) return 2;
    return 0;
}
