/* Argmins and argmaxes kept by their index alone (`if (a[i] < a[lo]) lo = i;`) in main,
   over a file's array and a local one, with ties (the first kept by `<`, the last by `>=`). */
#include <math.h>
#include <stdio.h>

double a[100003];

int main(void) {
    const int n = 100003;
    for (int i = 0; i < n; i++) a[i] = (double)((i * 7919L) % 1009) - 500.0;
    long m[5000];
    for (int i = 0; i < 5000; i++) m[i] = (i * 31L) % 97;
    int lo = 0;
    for (int i = 1; i < n; i++)
        if (a[i] < a[lo]) lo = i;
    int hi = 0;
    for (int i = 1; i < n; i++) {
        if (a[i] >= a[hi]) hi = i;
    }
    int near = 0;
    for (int i = 1; i < n; i++)
        if (fabs(a[i] - 3.25) < fabs(a[near] - 3.25)) near = i;
    int top = 0;
    for (int i = 1; i < 5000; i++)
        if (m[top] < m[i]) top = i;
    printf("%d %d %d %d\n", lo, hi, near, top);
    return 0;
}
