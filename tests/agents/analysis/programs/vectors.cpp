/* Vectors a program declares with a size (`std::vector<double> a(n), b(n);`, which the parser
   reads as prototypes taking an `n`), loops over their elements and standard algorithms over
   them. Usage: vectors [N] */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
    const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
    std::vector<double> a(n), b(n);
    for (long i = 0; i < n; ++i) {
        a[i] = 0.5 * (i % 17);
        b[i] = 1.0 / (1 + i % 5);
    }
    double dot = 0.0;
    for (long i = 0; i < n; ++i) dot += a[i] * b[i];
    for (double &x : a) x = x * 0.5 + 1.0;
    double squares = 0.0;
    for (double x : b) squares += x * x;
    long big = std::count_if(a.begin(), a.end(), [](double x) { return x > 4.0; });
    double least = *std::min_element(b.begin(), b.end());
    std::printf("%.6f %.6f %ld %.6f\n", dot, squares, big, least);
    return 0;
}
