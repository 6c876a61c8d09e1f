#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
    long *a = calloc(n + 2, sizeof(long));
    for (int i = -1; i < n; i++) a[i + 1] = 5;
    long s = 0;
    for (unsigned i = 0; i < n + 1; i++) s = s + a[i];
    printf("%ld\n", s);
    free(a);
    return 0;
}
