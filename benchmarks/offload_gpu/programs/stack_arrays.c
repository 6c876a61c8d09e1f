/* Stack arrays passed down: the device cannot reach them, so the loop stays on the host. */
#include <stdio.h>
static void scale(int n, double *a, double k) {
    for (int i = 0; i < n; i++) a[i] = a[i] * k + i;
}
int main(void) {
    double a[1000];
    for (int i = 0; i < 1000; i++) a[i] = i * 0.5;
    scale(1000, a, 3.0);
    double s = 0;
    for (int i = 0; i < 1000; i++) s += a[i];
    printf("%.3f %.3f\n", a[999], s);
    return 0;
}
