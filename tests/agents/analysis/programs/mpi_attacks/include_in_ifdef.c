#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long *a = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = (long)i * i % 7;
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    printf("%ld\n", s);
    free(a);
    return 0;
}
