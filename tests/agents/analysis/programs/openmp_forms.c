/* Loops a second hostile OpenMP probe found wrong or unbuildable, with loops that stay offered
   beside them: headers GCC's OpenMP counts otherwise or rejects (`!=` on an unsigned counter
   that wraps, a signed counter against an unsigned bound from a negative start, a floating
   bound, a test in parentheses, counters whose typedef is narrow, floating or an
   enumeration), a typedef'd bool that sums, a `_Pragma` hint, side effects no access shows
   (inline assembly, a cleanup function, a sizeof that calls), and a histogram too large for
   per-thread copies on the stack (its updates atomic instead). */
#include <math.h>
#include <stdio.h>

#define N 100003

typedef short idx_t;
typedef float real;
typedef enum { E0, EN = 5000 } E;
typedef _Bool flag;

static long a[N], b[N], c[N];
static int x[200000];
static int big[4000000];
static int count;

static int next_id(void) { return ++count; }
static void bump(int *p) { count += *p & 1; }

int main(void) {
    for (int i = 0; i < N; i++) a[i] = (i * 7919L) % 1009;
    for (size_t i = N - 1; i != (size_t)-1; --i) b[i] = a[i] + 1;
    unsigned n = 50;
    long under = 0;
    for (int i = -5; i < n; i++) under += 1;
    long lim = 0;
    for (int i = 0; i <= sqrt(N); i++) lim += a[i];
    for (int i = 0; (i < N); i++) c[i] = a[i] * 2;
    for (idx_t i = -30000; i < 30000; i++) c[i + 30000] += 1;
    real r = 0;
    for (real t = 0; t < 100; t += 1) r += t;
    long e = 0;
    for (E k = E0; k < EN; k++) e += k;
    flag f = 0;
    for (int i = 0; i < N; i++) f += a[i] > 1000;
    _Pragma("GCC unroll 2") for (int i = 0; i < N; i++) c[i] += 3;
    int hidden = 0;
    for (int i = 0; i < N; i++) {
        __asm__ volatile("" : "+r"(hidden));
        a[i] += hidden;
    }
    for (int i = 0; i < N; i++) {
        __attribute__((cleanup(bump))) int t = (int)a[i];
        b[i] += t;
    }
    for (int i = 0; i < 1000; i++) c[i] += (long)sizeof(int[next_id() % 5 + 1]);
    for (int i = 0; i < 200000; i++) x[i] = (int)(((unsigned)i * 2654435761u) % 1000003u);
    for (int i = 0; i < 200000; i++) big[(x[i] * 37) % 4000000] += 1;
    long s = 0, t = 0, h = 0;
    for (int i = 0; i < N; i++) s += a[i] + 3 * b[i];
    for (int i = 0; i < N; i++) t += c[i] % 7;
    for (int i = 0; i < 4000000; i++) h += (long)big[i] * (i % 7);
    printf("%ld %ld %ld\n", s, t, h);
    printf("%ld %ld %.1f %ld %d\n", under, lim, (double)r, e, (int)f);
    printf("%d %ld %ld\n", count, b[7], c[N - 1]);
    printf("done\n");
    return 0;
}
