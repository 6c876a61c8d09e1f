#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(void) {
    int x = 1;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task shared(x)
        x = x * 3;
        #pragma omp task shared(x)
        x = x + 5;
    }
    printf("%d\n", x);
    return 0;
}
