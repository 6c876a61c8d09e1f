/* C that C++ does not compile: a comparator converting its `const void *` arguments
   silently, `bsearch`'s result, variables and a member named with C++ keywords. */
#include <stdio.h>
#include <stdlib.h>

struct item {
    int class;
    double weight;
};

static int by_value(const void *pa, const void *pb) {
    const int *a = pa, *b = pb;
    return (*a > *b) - (*a < *b);
}

int main(void) {
    int sizes[] = {1, 2, 7, 100, 5000};
    for (int s = 0; s < 5; s++) {
        int n = sizes[s];
        int *new = malloc(sizeof(int) * n);
        struct item *this = malloc(sizeof(struct item) * n);
        for (int i = 0; i < n; i++) new[i] = (i * 7919) % 1009 - 500;
        for (int i = 0; i < n; i++) {
            this[i].class = new[i] % 3;
            this[i].weight = new[i] * 0.5;
        }
        qsort(new, n, sizeof(int), by_value);
        int key = new[n / 2], *found;
        found = bsearch(&key, new, n, sizeof(int), by_value);
        long total = 0;
        for (int i = 0; i < n; i++) total += new[i] * (long)(i % 7) + this[i].class;
        printf("%d %ld %d\n", n, total, found != NULL ? *found : -1);
        free(new);
        free(this);
    }
    return 0;
}
