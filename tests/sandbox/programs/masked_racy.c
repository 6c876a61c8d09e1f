#include <stdio.h>
#include <omp.h>

/* The masked block (thread 0) sets the step the other threads use right after it: masked has
   no implied barrier. */
int main(void) {
    double step = 0.0;
    double out[256] = {0};
    #pragma omp parallel num_threads(4)
    {
        #pragma omp masked
        {
            step = 0.5;
        }
        int t = omp_get_thread_num();
        for (int k = t; k < 256; k += omp_get_num_threads()) out[k] = k * step;
    }
    printf("%.1f\n", out[255]);
    return 0;
}
