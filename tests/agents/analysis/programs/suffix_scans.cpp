// Scans counting down: suffix sums, what follows each element (exclusive), packing from the
// end, a running minimum from the end.
#include <cstdio>
#include <vector>
void suffix(std::vector<long> const &x, std::vector<long> &s) {
    long acc = 0;
    for (int i = (int)x.size() - 1; i >= 0; i--) { acc += x[i]; s[i] = acc; }
}
long after(std::vector<long> const &x, std::vector<long> &a) {
    long t = 0;
    for (long i = (long)x.size() - 1; i >= 0; --i) { a[i] = t; t += x[i] % 13; }
    return t;
}
int from_end(std::vector<long> const &x, std::vector<int> &out) {
    int k = 0;
    for (size_t i = x.size() - 1; i > 0; i--) if (x[i] % 3 == 0) out[k++] = (int)i;
    return k;
}
long runmin(std::vector<long> const &x, std::vector<long> &m) {
    long lo = 1L << 40;
    for (int i = (int)x.size() - 1; i >= 0; i--) { if (x[i] < lo) lo = x[i]; m[i] = lo; }
    return lo;
}
int main() {
    for (int n : {1, 2, 3, 7, 64, 1000, 100003}) {
        std::vector<long> x(n), s(n, -1), a(n, -1), m(n, -1);
        std::vector<int> out(n, -1);
        for (int i = 0; i < n; i++) x[i] = (i * 7919) % 1013 - 500;
        suffix(x, s);
        long t = after(x, a);
        int k = from_end(x, out);
        long lo = runmin(x, m);
        long check = 0;
        for (int i = 0; i < n; i++) check += s[i] % 1009 * (i % 3) + a[i] % 17 + out[i] * (i % 5) + m[i] % 7;
        std::printf("%d %ld %d %ld %ld\n", n, t, k, lo, check);
    }
}
