// Searches, scans, range-based loops and standard input, in C++, at sizes around the rank counts.
#include <array>
#include <cstdio>
#include <iostream>
#include <vector>

std::size_t firstEven(std::vector<int> const &x) {
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i] % 2 == 0) {
            return i;
        }
    }
    return x.size();
}

void prefixSum(std::vector<double> const &x, std::vector<double> &output) {
    output.resize(x.size());
    output[0] = x[0];
    for (int i = 1; i < (int)x.size(); ++i) {
        output[i] = output[i - 1] + x[i];
    }
}

void partialMinimums(std::vector<float> &x) {
    float least = x[0];
    for (int i = 0; i < (int)x.size(); i++) {
        if (x[i] < least) {
            least = x[i];
        }
        x[i] = least;
    }
}

void invert(std::vector<double> &x) {
    for (auto &e : x) e = 1.0 - 1.0 / e;
}

void count(std::vector<int> const &img, std::array<std::size_t, 8> &bins) {
    for (auto const &p : img) bins[p]++;
}

bool parity(std::vector<bool> const &flags) {
    bool odd = false;
    for (auto const &f : flags) odd ^= f;
    return odd;
}

std::vector<double> spread(std::vector<int> const &x, std::size_t width);

int main() {
    int rounds;
    std::cin >> rounds;
    for (int r = 0; r < rounds; r++) {
        int n;
        std::cin >> n;
        std::vector<int> x(n);
        for (int i = 0; i < n; i++) std::cin >> x[i];
        std::vector<double> d(n + 1), sums;
        std::vector<float> f(n + 1);
        std::vector<int> img(n);
        std::vector<bool> flags(n);
        for (int i = 0; i <= n; i++) d[i] = (i * 37) % 11 - 5.5;
        for (int i = 0; i <= n; i++) f[i] = (float)((i * 29) % 23) - (float)i / 3;
        for (int i = 0; i < n; i++) img[i] = x[i] % 8;
        for (int i = 0; i < n; i++) flags[i] = x[i] % 3 == 0;
        prefixSum(d, sums);
        partialMinimums(f);
        invert(d);
        std::array<std::size_t, 8> bins{};
        count(img, bins);
        std::vector<double> spreadOut = spread(x, (std::size_t)(r % 3) * 5);
        std::cout << firstEven(x) << " " << sums[n / 2] << " " << sums[n] << " " << f[n] << " "
                  << d[n] << " " << bins[1] << " " << parity(flags) << " "
                  << (spreadOut.empty() ? -1.0 : spreadOut[spreadOut.size() / 2]) << "\n";
    }
    return 0;
}

// A histogram whose length is known only at run time (0 bins too): every rank's counts summed.
std::vector<double> spread(std::vector<int> const &x, std::size_t width) {
    std::vector<double> bins(width, 0.0);
    if (width == 0) return bins;
    for (std::size_t i = 0; i < x.size(); ++i) bins[x[i] % width] += 0.5 * x[i];
    return bins;
}
