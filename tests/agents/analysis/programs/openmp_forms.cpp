// C++ loops a second hostile OpenMP probe found wrong or unbuildable, with loops that stay
// offered: counters whose `auto`, `using` or template type is narrow, a vector's size
// against a negative start, a template's vector that may be bits (written in whole words),
// a default argument that calls, a temporary, a by-value parameter or a member whose
// destructor counts, a member initialiser that calls, a loop in a constexpr function.
#include <cstdio>
#include <vector>

static int made = 0;
static int next_id() { return ++made; }
static int with_default(int x, int y = next_id()) { return x + y; }

struct Guard {
    int v;
    Guard(int x) : v(x) {}
    ~Guard() { made += v & 1; }
};
struct Holder {
    Guard g;
    int w;
};
struct Tagged {
    int id = next_id();
    int w = 0;
};
static int take(Guard g) { return g.v * 2; }

using small = short;

template <typename I>
long narrow_sum(I from, I to) {
    long s = 0;
    for (I i = from; i < to; i++) s += i;
    return s;
}

template <typename T>
void set_multiples(std::vector<T> &v, const std::vector<int> &x, int k) {
    for (size_t i = 0; i < v.size(); i++) v[i] = x[i] % k == 0;
}

constexpr long table_sum(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += i % 7;
    return s;
}

int main() {
    const int n = 100003;
    std::vector<int> x(n), y(n), z(n);
    for (int i = 0; i < n; i++) x[i] = (int)((i * 2654435761u) % 1000003u);
    long narrow = 0;
    for (auto c = (signed char)-100; c < 100; c++) narrow += c;
    for (small i = -3000; i < 3000; i++) narrow += i;
    narrow += narrow_sum<signed char>(-100, 100);
    long below = 0;
    for (int i = -1; i < x.size(); i++) below += 1;
    std::vector<bool> bits(n);
    long picked = 0;
    for (int k = 2; k < 6; k++) {
        set_multiples(bits, x, k);
        for (int i = 0; i < n; i++) picked += bits[i] ? k : 0;
    }
    for (int i = 0; i < n; i++) y[i] = with_default(i % 7);
    for (int i = 0; i < n; i++) z[i] = Guard(i).v + take(i);
    for (int i = 0; i < 1000; i++) {
        Holder h{Guard(i), i};
        Tagged t;
        z[i] += h.w + t.w;
    }
    constexpr long table = table_sum(1000);
    long s = 0;
    for (int i = 0; i < n; i++) s += (long)y[i] % 13 + z[i] % 11;
    std::printf("%ld %ld %ld\n%ld %ld %d\n", narrow, below, picked, s, table, made);
    for (int k = 1; k < n; k *= 10) std::printf("%d %d\n", y[k], z[k]);
    return 0;
}
