#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    char *s = malloc(n + 1);
    for (int i = 0; i < n; i++) s[i] = 'a' + (i * 7) % 26;
    s[n] = 0;
    for (int i = 0; i < strlen(s); i++) s[i] = s[i] == 'x' ? 0 : s[i];
    int zeros = 0;
    for (int i = 0; i < n; i++) zeros += s[i] == 0;
    printf("%zu %d\n", strlen(s), zeros);
    return 0;
}
