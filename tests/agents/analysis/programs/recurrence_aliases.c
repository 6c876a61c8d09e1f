/* A prefix sum whose loop also writes another array, called with that array one element on
   (`b[i]` is `a[i + 1]`) and the same (`b[i] = a[i] ^ 5` changes what the next iteration
   reads): written with a running value of its own, the next iteration would not read it.
   And a plain prefix sum and a map, which the tools take. */
#include <stdio.h>
#include <stdlib.h>

#define N 100003

void f(unsigned *a, unsigned *b, const unsigned *x, int n) {
    for (int i = 1; i < n; i++) {
        a[i] = a[i - 1] + x[i];
        b[i] = a[i] ^ 5u;
    }
}

void g(unsigned *p, const unsigned *x, int n) {
    for (int i = 1; i < n; i++) p[i] = p[i - 1] + x[i];
}

int main(void) {
    unsigned *buf = malloc(sizeof(unsigned) * (N + 1)), *x = malloc(sizeof(unsigned) * N);
    unsigned *c = malloc(sizeof(unsigned) * N), *p = malloc(sizeof(unsigned) * N);
    for (int i = 0; i < N + 1; i++) buf[i] = (unsigned)(i * 7 % 10);
    for (int i = 0; i < N; i++) {
        x[i] = (unsigned)(i * 3 % 10);
        c[i] = (unsigned)(i % 10);
        p[i] = (unsigned)(i % 4);
    }
    f(buf, buf + 1, x, N);
    f(c, c, x, N);
    g(p, x, N);
    unsigned long long h = 0;
    for (int i = 0; i < N + 1; i++) h = h * 31u + buf[i];
    printf("one on %llu\n", h);
    for (int i = 0; i < N; i++) h = h * 31u + c[i];
    printf("the same %llu\n", h);
    for (int i = 0; i < N; i++) h = h * 31u + p[i];
    printf("plain %llu %u\n", h, p[N - 1]);
    free(buf);
    free(x);
    free(c);
    free(p);
    return 0;
}
