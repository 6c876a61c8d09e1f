// Running minima and maxima in the spellings programs use (C++: a scan's min or max needs
// std::numeric_limits on the host).
#include <algorithm>
#include <cstdio>
#include <vector>

// The highest value so far (a drawdown's peak), and how far below it each value is.
double drawdown(std::vector<double> const &price, std::vector<double> &below) {
    double peak = price.empty() ? 0.0 : price[0];
    double worst = 0.0;
    for (size_t i = 0; i < price.size(); ++i) {
        peak = std::max(peak, price[i]);
        below[i] = peak - price[i];
    }
    for (size_t i = 0; i < price.size(); ++i) worst = std::max(worst, below[i]);
    return worst;
}

// The lowest so far, kept by an `if`, and the one before each step (exclusive).
void lows(std::vector<int> const &x, std::vector<int> &low, std::vector<int> &before) {
    int m = 1 << 30;
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] < m) m = x[i];
        low[i] = m;
    }
    long best = -7;
    for (size_t i = 0; i < x.size(); ++i) {
        before[i] = (int)best;
        best = x[i] > best ? x[i] : best;
    }
}

int main() {
    for (int n : {1, 2, 3, 7, 64, 1000, 100003}) {
        std::vector<double> price(n), below(n);
        std::vector<int> x(n), low(n), before(n);
        for (int i = 0; i < n; i++) {
            price[i] = 100.0 + ((i * 7919) % 1013) * 0.25 - (i % 17) * 3.0 + i * 0.01;
            x[i] = (i * 104729) % 100003 - 50000;
        }
        double worst = drawdown(price, below);
        lows(x, low, before);
        double check = 0;
        for (int i = 0; i < n; i++) check += below[i] * (i % 3) + low[i] % 97 + before[i] % 89;
        std::printf("%d %.4f %.4f\n", n, worst, check);
    }
}
