/* Rows on the heap through a pointer to arrays (`long (*a)[W]`): the kernel takes the
   pointer, which the declaration names inside parentheses. */
#include <stdio.h>
#include <stdlib.h>
#define W 50

int main(void) {
    int sizes[] = {1, 2, 7, 40, 300};
    for (int s = 0; s < 5; s++) {
        int r = sizes[s];
        long (*a)[W] = malloc(sizeof(long) * W * r);
        for (int j = 0; j < r; j++)
            for (int i = 0; i < W; i++) a[j][i] = (j * 31 + i * 7) % 19 - 9;
        long total = 0;
        for (int j = 0; j < r; j++) total = total * 3 + a[j][j % W];
        printf("%d %ld\n", r, total);
        free(a);
    }
    return 0;
}
