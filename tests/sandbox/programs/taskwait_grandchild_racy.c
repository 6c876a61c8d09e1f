#include <stdio.h>
#include <omp.h>

/* The outer task starts a task of its own and does not wait for it; the taskwait below waits for
   the outer task only, so the inner one may still be writing parts[1] when they are summed. */
int main(void) {
    int data[8], parts[2] = {0, 0}, sum = 0;
    for (int i = 0; i < 8; i++) data[i] = i + 1;
    #pragma omp parallel num_threads(4)
    #pragma omp single
    {
        #pragma omp task shared(parts, data)
        {
            #pragma omp task shared(parts, data)
            {
                for (int i = 4; i < 8; i++) parts[1] += data[i];
            }
            for (int i = 0; i < 4; i++) parts[0] += data[i];
        }
        #pragma omp taskwait
        sum = parts[0] + parts[1];
    }
    printf("%d\n", sum);
    return 0;
}
