#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    static int a[N], seen[64];
    int last = -1;
    for (int i = 0; i < N; i++) a[i] = 3 * i;
    #pragma omp parallel
    {
        #pragma omp for lastprivate(last) nowait
        for (int i = 0; i < N; i++)
            last = a[i];
        int t = omp_get_thread_num();
        if (t < 64) seen[t] = last;
    }
    printf("%d %d\n", last, seen[0] >= 0);
    return 0;
}
