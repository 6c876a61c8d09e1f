#include <stdio.h>

/* `scratch` is declared static inside the region: one variable for every thread. */
int main(void) {
    int in[200], out[200];
    for (int i = 0; i < 200; i++) in[i] = i;
    #pragma omp parallel
    {
        static int scratch;
        #pragma omp for
        for (int i = 0; i < 200; i++) {
            scratch = in[i] * 2;
            out[i] = scratch + 1;
        }
    }
    printf("%d\n", out[199]);
    return 0;
}
