#include <cstdio>
#include <vector>

void shift(long *dst, const long *src, int n) {
    for (int i = 0; i < n; i++) dst[i] = src[i] + 1;
}

void bump(long *a, int n) {
    long *p = a + 1;
    for (int i = 0; i < n - 1; i++) p[i] = a[i] + 1;
}

long total(long *y, const long *x, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
        y[i] = 2 * x[i];
        s += x[i];
    }
    return s;
}

void prefix(long *out, const long *x, int n) {
    long acc = 0;
    for (int i = 0; i < n; i++) {
        acc += x[i];
        out[i] = acc;
    }
}

void count(long *bins, const long *x, int n) {
    for (int i = 0; i < n; i++) bins[x[i] % 8] += 1;
}

void tally(std::vector<long> &bins, std::vector<long> const &x) {
    for (size_t i = 0; i < x.size(); i++) bins[x[i] % 8] += 1;
}

int lowest(long *y, const long *x, int n) {
    long best = x[0];
    int at = 0;
    for (int i = 0; i < n; i++) {
        y[i] = x[i] + 1;
        if (x[i] < best) {
            best = x[i];
            at = i;
        }
    }
    return at;
}

void copy(std::vector<long> &dst, std::vector<long> const &src) {
    for (size_t i = 1; i < dst.size(); i++) dst[i] = src[i - 1] + 1;
}

void grid(int n, long a[][16], long b[][16]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 16; j++) a[i][j] = b[i][15 - j] + 1;
}

void triangle(int n, long *a, const long *b) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) a[i * n + j] = b[i * n + j] + j;
}

static long sum(const long *x, int n) {
    long s = 0;
    for (int k = 0; k < n; k++) s = s * 31 + x[k];
    return s;
}

int main() {
    const int n = 20000;
    std::vector<long> x(2 * n + 16), y(2 * n + 16);
    for (int k = 0; k < 2 * n + 16; k++) x[k] = (k * 7919) % 1000;
    y = x;
    shift(x.data(), x.data() + 1, n);
    shift(x.data() + n + 8, x.data(), n);
    std::printf("shift %ld\n", sum(x.data(), 2 * n));
    bump(x.data(), n);
    std::printf("bump %ld\n", sum(x.data(), n));
    long t = total(x.data() + 1, x.data(), n) + total(y.data(), x.data(), n);
    std::printf("total %ld %ld\n", t, sum(x.data(), 2 * n));
    prefix(x.data() + 3, x.data(), n);
    prefix(y.data(), x.data(), n);
    std::printf("prefix %ld %ld\n", sum(x.data(), 2 * n), sum(y.data(), n));
    count(x.data() + 5, x.data(), n);
    count(y.data() + n, x.data(), n);
    std::printf("count %ld %ld\n", sum(x.data(), 2 * n), sum(y.data(), 2 * n));
    std::vector<long> bins(8);
    tally(bins, x);
    tally(x, x);
    std::printf("tally %ld %ld\n", sum(bins.data(), 8), sum(x.data(), 2 * n));
    int at = lowest(x.data() + 2, x.data(), n) + lowest(y.data(), x.data(), n);
    std::printf("lowest %d %ld\n", at, sum(x.data(), 2 * n));
    copy(x, x);
    copy(y, x);
    std::printf("copy %ld %ld\n", sum(x.data(), 2 * n), sum(y.data(), 2 * n));
    static long g[64][16], h[64][16];
    for (int k = 0; k < 64 * 16; k++) g[k / 16][k % 16] = k;
    grid(63, g + 1, g);
    grid(64, h, g);
    std::printf("grid %ld %ld\n", sum(&g[0][0], 64 * 16), sum(&h[0][0], 64 * 16));
    triangle(100, x.data() + 7, x.data());
    triangle(100, y.data(), x.data());
    std::printf("triangle %ld %ld\n", sum(x.data(), 2 * n), sum(y.data(), 2 * n));
}
