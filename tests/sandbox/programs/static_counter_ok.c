#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static int next_id(void) {
    static int id = 0;
    int mine;
    #pragma omp atomic capture
    mine = id++;
    return mine;
}
int main(void) {
    static int ids[500];
    #pragma omp parallel for
    for (int i = 0; i < 500; i++)
        ids[i] = next_id();
    long s = 0;
    for (int i = 0; i < 500; i++) s += ids[i];
    printf("%ld\n", s);
    return 0;
}
