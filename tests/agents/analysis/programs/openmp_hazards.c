/* Loops whose OpenMP versions a hostile probe found wrong or unbuildable, with a loop of
   each kind that stays offered. Wrong: a counter a called function reads (each thread
   counts a private copy), `bool` sums and exclusive ors of terms other than 0 or 1 (each
   step stores 0 or 1), a `&&` fold whose skipped operand stores. Not built: a reduction
   into a pointer or an atomic, a floating counter, an enumeration's (GCC 12 stopped with
   an internal error). */
#include <stdio.h>
#include <stdbool.h>

#define N 100003

int i;
static int a[N], b[N], c[N];
static char buf[3 * N];
enum E { E0, EN = 5000 };

static int twice(void) { return i * 2; }

static int thrice(int k) { return k * 3; }

void counted_globally(void) {
    for (i = 0; i < N; i++) a[i] = twice();
}

void counted_locally(void) {
    for (int k = 0; k < N; k++) c[k] = thrice(k) + a[k];
}

int main(void) {
    counted_globally();
    counted_locally();
    for (int k = 0; k < N; k++) b[k] = (k % 2) ? -1 : 1;
    bool z = false;
    for (int k = 0; k < N; k++) z += b[k];
    bool y = false;
    for (int k = 0; k < N; k++) y ^= c[k] % 4;
    bool w = true;
    for (int k = 0; k < N; k++) w = w & (c[k] >= 0);
    int ok = 1;
    for (int k = 0; k < N; k++) ok = ok && (b[k] = a[k] % 1000 - 1) >= 0;
    int fine = 1;
    for (int k = 0; k < N; k++) fine = fine && (c[k] >= 0);
    _Atomic int total = 0;
    for (int k = 0; k < N; k++) total += b[k];
    char *end = buf;
    for (int k = 0; k < N; k++) end += (a[k] & 1);
    int d = 0;
    for (double x = 0; x < 1000; x += 1.0) c[d++] = (int)(x * 2);
    static int by_e[EN];
    for (enum E e = E0; e < EN; e++) by_e[e] = (int)e * 2;
    long s = 0;
    for (int k = 0; k < N; k++) s += (long)a[k] + b[k] + c[k];
    printf("%d %d %d\n", a[7], a[N / 2], a[N - 1]);
    printf("%d %d %d\n", (int)z, (int)y, (int)w);
    printf("%d %d\n", ok, fine);
    printf("%d %ld\n", (int)total, (long)(end - buf));
    printf("%d %d\n", d, by_e[EN - 1]);
    printf("%ld\n", s);
    printf("%d %d\n", c[5], b[9]);
    return 0;
}
