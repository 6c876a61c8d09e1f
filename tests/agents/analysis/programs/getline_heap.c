/* A heap buffer the C library grows (getline reallocates the caller's malloc'd buffer) beside
   a sum over heap memory: the program's heap stays the C library's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    static char text[] = "12 7 5\nthis line is much longer than four bytes 3\n9\n";
    FILE *f = fmemopen(text, strlen(text), "r");
    size_t cap = 4;
    char *line = malloc(cap);
    long total = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) != -1) total += got;
    fclose(f);
    free(line);
    int n = 100000;
    int *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = i % 7;
    long s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    printf("%ld %ld\n", total, s);
    free(x);
    return 0;
}
