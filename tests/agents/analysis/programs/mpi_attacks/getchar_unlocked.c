#include <stdio.h>
#include <stdlib.h>
static int rd(void) { int c = getchar_unlocked(), x = 0; while (c < '0' || c > '9') { if (c == EOF) return -1; c = getchar_unlocked(); } while (c >= '0' && c <= '9') { x = x * 10 + c - '0'; c = getchar_unlocked(); } return x; }
int main(void) {
    int n = rd(); if (n < 0) n = 0;
    long *a = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = rd();
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    printf("%ld\n", s);
    return 0;
}
