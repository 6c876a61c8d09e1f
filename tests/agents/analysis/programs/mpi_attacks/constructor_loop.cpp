#include <cstdio>
#include <cstdlib>
#include <vector>
struct RowSum {
    const std::vector<long> &m; int c;
    long operator()(int r) const { long s = 0; for (int j = 0; j < c; j++) s += m[r * c + j]; return s; }
};
struct Acc {
    long v;
    Acc(const std::vector<long> &m, int r, int c) : v(0) { for (int j = 0; j < c; j++) v += m[r * c + j] * 2; }
};
int main(int argc, char **argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 10;
    int c = n + 1;
    std::vector<long> m((size_t)n * c), out(n), out2(n);
    for (int i = 0; i < n * c; i++) m[i] = i % 7;
    RowSum f{m, c};
    for (int i = 0; i < n; i++) out[i] = f(i);
    for (int i = 0; i < n; i++) { Acc a(m, i, c); out2[i] = a.v; }
    long t = 0;
    for (int i = 0; i < n; i++) t += out[i] * (i % 3 + 1) + out2[i];
    std::printf("%ld\n", t);
    return 0;
}
