/* First-match searches for `offload`: each thread notes the first iteration of its own that
   would leave, the host runs the smallest again. Found early, late and nowhere. */
#include <stdio.h>
#include <stdlib.h>

static int a[100000];

static int find(int n, int target) {
    for (int i = 0; i < n; i++) {
        if (a[i] == target) return i;
    }
    return -1;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    if (n > 100000) n = 100000;
    for (int i = 0; i < n; i++) a[i] = (int)((i * 7919L) % 10007);
    int found = -1, value = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > 10000 && i % 3 == 1) {
            found = i;
            value = a[i];
            break;
        }
    }
    printf("%d %d\n", found, value);
    printf("%d %d %d\n", find(n, 0), find(n, 4242), find(n, 20000));
    return 0;
}
