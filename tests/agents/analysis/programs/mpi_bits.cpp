// std::vector<bool> maps divided over ranks: each rank sets its block's bits in its own copy,
// and the bits move as one byte each; the vectors are read after (a count, a sum of picks).
#include <cstdio>
#include <vector>

static bool power_of_two(int x) { return x > 0 && !(x & (x - 1)); }

int main() {
    const int n = 100003;
    std::vector<int> x(n);
    for (int i = 0; i < n; i++) x[i] = (int)((i * 7919L) % 4099) - 5;
    std::vector<bool> mask(n);
    for (int i = 0; i < n; i++) mask[i] = power_of_two(x[i]);
    std::vector<bool> thirds(n + 64);
    for (int i = 0; i < n; i++) thirds[i] = x[i] % 3 == 0;
    long count = 0;
    for (int i = 0; i < n; i++) count += mask[i] ? 1 : 0;
    long picked = 0;
    for (int i = 0; i < n; i++) picked += thirds[i] ? x[i] : 0;
    std::printf("%ld\n%ld\n", count, picked);
    for (int k = 1; k < n; k *= 7) std::printf("%d %d %d\n", k, (int)mask[k], (int)thirds[k]);
    return 0;
}
