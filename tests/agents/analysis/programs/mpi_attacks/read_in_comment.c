#include <stdio.h>
#include <stdlib.h>
/* no input is read: the size comes from argv */
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long *a = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = i % 9;
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    printf("%ld\n", s);
    return 0;
}
