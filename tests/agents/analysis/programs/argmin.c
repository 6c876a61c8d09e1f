/* An argmin (the first of equal minima), an argmax keeping the last of equal maxima, and a
   maximum kept alone, over values with many ties. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n = 300000;
    double *a = malloc(n * sizeof *a);
    for (int i = 0; i < n; i++) a[i] = (double)((i * 7919) % 1001) - 500.0;
    double best = a[0];
    int at = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] < best) {
            best = a[i];
            at = i;
        }
    }
    double top = -1e300;
    long where = -1;
    for (long i = 0; i < n; i++) {
        if (a[i] * 2.0 >= top) {
            top = a[i] * 2.0;
            where = i;
        }
    }
    double most = 0.0;
    for (int i = 0; i < n; i++) {
        if (a[i] > most) {
            most = a[i];
        }
    }
    printf("%d %.1f %ld %.1f %.1f\n", at, best, where, top, most);
    free(a);
    return 0;
}
