/* A first-match search, for the rank rounds of `distribute`: every rank stops at its first
   match, a MIN reduction takes the smallest. */
#include <stdio.h>
#include <stdlib.h>
static int a[5000];
int find(int n, int target) {
    for (int i = 0; i < n; i++) {
        if (a[i] == target) return i;
    }
    return -1;
}
int main(int argc, char **argv) {
    int n = 5000;
    int target = argc > 1 ? atoi(argv[1]) : 9993;
    for (int i = 0; i < n; i++) a[i] = (i * 7919) % 10007;
    printf("%d %d\n", target, find(n, target));
    return 0;
}
