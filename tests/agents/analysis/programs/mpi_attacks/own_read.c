#include <stdio.h>
#include <stdlib.h>
int read(void) { int x = 0; if (scanf("%d", &x) != 1) return 0; return x; }
int main(void) {
    int n = read();
    long *a = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = read();
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    printf("%ld\n", s);
    return 0;
}
