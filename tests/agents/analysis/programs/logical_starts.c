/* Folds with && and || whose variable may hold other than 0 or 1 before the loop: where the
   loop runs no iteration the variable keeps it (5 stays 5), while a fold combined from the
   threads' identities leaves 1. Only a bool or a local declared with 0 or 1 and not named
   again before the loop is folded; each function runs with no iteration and with some. */
#include <stdio.h>
#include <stdbool.h>

#define N 10007

static int x[N];

int any_from(const int *v, int n, int any) {
    for (int i = 0; i < n; i++) any = any || (v[i] > 1000);
    return any;
}

int all_from_seven(const int *v, int n) {
    int all = 7;
    for (int i = 0; i < n; i++) all = all && (v[i] > 1);
    return all;
}

int any_from_zero(const int *v, int n) {
    int any = 0;
    for (int i = 0; i < n; i++) any = any || (v[i] > 90);
    return any;
}

int all_of_bool(const int *v, int n, bool b) {
    for (int i = 0; i < n; i++) b = b && (v[i] > -1);
    return b;
}

int passes(const int *v, int n) {
    int all = 1, t = 0;
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < n; i++) all = all && (v[i] > r);
        t += all;
        all = 9;
    }
    return t + all;
}

int bumped(const int *v, int n) {
    int all = 1;
    all += 4;
    for (int i = 0; i < n; i++) all = all && (v[i] > 1);
    return all;
}

/* on floating numbers (MPI has no && or || for them) */
double all_double(const int *v, int n) {
    double all = 1;
    for (int i = 0; i < n; i++) all = all && (v[i] > 0);
    return all;
}

float any_float(const int *v, int n) {
    float any = 0;
    for (int i = 0; i < n; i++) any = any || (v[i] == 100);
    return any;
}

int main(void) {
    for (int i = 0; i < N; i++) x[i] = (int)((i * 7919L) % 101);
    int sizes[] = {0, 1, N};
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        printf("n %d: %d %d %d\n", n, any_from(x, n, 5), all_from_seven(x, n), any_from_zero(x, n));
        printf("n %d: %d %d %d\n", n, all_of_bool(x, n, true), passes(x, n), bumped(x, n));
        printf("n %d: %.1f %.1f\n", n, all_double(x, n), (double)any_float(x, n));
    }
    printf("done\n");
    return 0;
}
