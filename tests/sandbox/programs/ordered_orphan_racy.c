#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define N 400
static int out[N];
static int pos = 0;
static void emit(int v) {
    #pragma omp ordered
    { out[pos++] = v; }
}
int main(void) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < N; i++)
        emit(i * i % 97);
    long h = 0;
    for (int i = 0; i < N; i++) h = (h * 31 + out[i]) % 1000003;
    printf("%ld\n", h);
    return 0;
}
