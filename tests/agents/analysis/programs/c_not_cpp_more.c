/* More C that C++ does not compile: tags and typedefs named with C++ keywords, a macro
   parameter so named, `void *` returned, passed, stored into a member and chosen by `?:`
   as typed pointers, an `int` stored into an `enum`, the program's own `bool`, a loop body
   declaring its counter's name again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWICE(new) ((new) * 2)
#define LABEL "new class"

typedef int bool;
struct class { int *data; int this; };
typedef struct template { long delete; } template;
enum mode { ADD, MUL };

static int *as_ints(void *p) { return p; }

static long sum(const int *v, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}

int main(void) {
    int sizes[] = {1, 2, 7, 100, 3000};
    for (int q = 0; q < 5; q++) {
        int n = sizes[q];
        void *raw = malloc(sizeof(int) * n);
        int *a = as_ints(raw);
        struct class c;
        c.data = raw;
        c.this = n % 5;
        int *b = n > 0 ? raw : NULL;
        enum mode m = q % 2;
        bool flag = 1;
        template t;
        t.delete = 0;
        for (int i = 0; i < n; i++) a[i] = TWICE(i % 17) - 9;
        for (int i = 0; i < n; i++) c.data[i] += m == ADD ? c.this : 1;
        long s = sum(raw, n);
        for (int i = 0; i < n; i++) t.delete += b[i] * flag;
        printf("%d %ld %ld %s %d\n", n, s, t.delete, LABEL, (int)strlen(LABEL));
        for (int k = 0; k < 2; k++) {
            long k = s + 1; /* C: the body's own k, which hides the counter's */
            printf("%ld\n", k);
        }
        free(raw);
    }
    return 0;
}
