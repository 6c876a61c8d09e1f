#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 1000
int main(void) {
    int count = 0, peeks = 0;
    #pragma omp parallel for reduction(+:peeks)
    for (int i = 0; i < N; i++) {
        int now;
        #pragma omp atomic
        count++;
        #pragma omp atomic read
        now = count;
        if (now > N / 2) peeks++;
    }
    printf("%d %d\n", count, peeks > 0);
    return 0;
}
