#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    int *a = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++) a[i] = (i * 37) % 101;
    int best = 1000, at = -1;
    for (int i = 0; i < n; i++) if (a[i] < best) best = a[i], at = i;
    int b2 = -1, at2 = -1;
    for (int i = 0; i < n; i++) if (a[i] >= b2) { at2 = i; b2 = a[i]; }
    printf("%d %d %d %d\n", best, at, b2, at2);
    fprintf(stderr, "done\n");
    return 0;
}
