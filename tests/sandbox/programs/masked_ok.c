#include <stdio.h>
#include <omp.h>

/* The same masked block followed by a barrier before anyone reads the step. */
int main(void) {
    double step = 0.0;
    double out[256] = {0};
    #pragma omp parallel num_threads(4)
    {
        #pragma omp masked
        {
            step = 0.5;
        }
        #pragma omp barrier
        int t = omp_get_thread_num();
        for (int k = t; k < 256; k += omp_get_num_threads()) out[k] = k * step;
    }
    printf("%.1f\n", out[255]);
    return 0;
}
