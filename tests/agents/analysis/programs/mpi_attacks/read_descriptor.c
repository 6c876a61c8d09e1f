#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static char buf[1 << 20];
int main(void) {
    ssize_t len = 0, got;
    while ((got = read(0, buf + len, sizeof buf - 1 - len)) > 0) len += got;
    buf[len] = 0;
    char *p = buf; int n = (int)strtol(p, &p, 10);
    long *a = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = strtol(p, &p, 10);
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    printf("%ld\n", s);
    return 0;
}
