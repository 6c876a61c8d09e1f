#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static int next_id(void) { static int id = 0; return id++; }
int main(void) {
    static int ids[500];
    #pragma omp parallel for
    for (int i = 0; i < 500; i++)
        ids[i] = next_id();
    printf("%d\n", ids[0] >= 0);
    return 0;
}
