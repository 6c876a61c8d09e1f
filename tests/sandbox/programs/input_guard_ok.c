#include <stdio.h>
#include <stdlib.h>

/* The same stamp, made by the iteration that owns element 0. */
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    if (n < 1) n = 1;
    int *values = malloc(sizeof(int) * n);
    #pragma omp parallel for shared(values)
    for (int i = 0; i < n; i++) {
        values[i] = i;
        if (n > 5000 && i == 0)
            values[0] = -1;
    }
    printf("%d\n", values[n - 1]);
    free(values);
    return 0;
}
