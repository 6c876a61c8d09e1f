#include <stdio.h>
#include <stdlib.h>
#define size 16
#define rank 3
#define count 7
#define data 2
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long *a = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = (long)i * size % (rank + count + data);
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    printf("%ld\n", s);
    free(a);
    return 0;
}
