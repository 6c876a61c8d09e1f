#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static int a[N];
    int last = -1;
    for (int i = 0; i < N; i++) a[i] = (i * 37) % 101;
    #pragma omp parallel for
    for (int i = 0; i < N; i++)
        if (a[i] > 90) last = i;
    printf("%d\n", last);
    return 0;
}
