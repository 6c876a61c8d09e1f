/* realloc and free of memory the C library allocated (strdup), beside managed heap memory a
   loop sums: nothing before the library's blocks is read, and they stay the library's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char *s = strdup("hello");
    s = realloc(s, 1 << 20);
    strcpy(s + 5, " world");
    char *big = strdup("x");
    for (int r = 0; r < 3; r++) big = realloc(big, (size_t)(200000 << r));
    big[1] = 0;
    int n = 100000;
    int *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = i % 7;
    long t = 0;
    for (int i = 0; i < n; i++) t += x[i];
    x = realloc(x, 2 * n * sizeof *x);
    for (int i = n; i < 2 * n; i++) x[i] = 1;
    long u = 0;
    for (int i = 0; i < 2 * n; i++) u += x[i];
    printf("%s %s %ld %ld\n", s, big, t, u);
    free(s);
    free(big);
    free(x);
    return 0;
}
