// Loops a hostile probe's CUDA programs got wrong or could not build, beside loops that stay
// offered: a method's loop (no kernel is a member), names reached through `::` (the kernel's
// copy is not the name its body reads: `::g` wrote nothing back), std::complex members (host
// functions to nvcc), a first value calling code that counts its calls (run again to size
// the launch), a row's prefix sum inside a nest (no flat range over both loops).
#include <complex>
#include <cstdio>
#include <vector>

double g[5000];

namespace ns {
double w[5000];
}

struct S {
    static double w[5000];
};
double S::w[5000];

struct Grid {
    int n;
    double v[5000];
    void fill(double x) {
        for (int i = 0; i < n; i++) v[i] = x * i;
    }
};

static int calls = 0;
static int lo() {
    calls++;
    return 3;
}

static int a[200][150];
static double flat[300 * 200];

int main() {
    static Grid grid;
    grid.n = 5000;
    grid.fill(0.5);
    for (int i = 0; i < 5000; i++) ::g[i] = i % 10;
    for (int i = 0; i < 5000; i++) ns::w[i] = i % 7;
    for (int i = 0; i < 5000; i++) S::w[i] = i % 3;
    std::vector<std::complex<double>> z(5000);
    for (int i = 0; i < 5000; i++) z[i] = std::complex<double>(i % 5, i % 3);
    double re = 0;
    for (int i = 0; i < 5000; i++) re += z[i].real();
    std::vector<int> b(5000);
    for (int i = lo(); i < 5000; i++) b[i] = i;
    for (int i = 0; i < 200; i++)
        for (int j = 0; j < 150; j++) a[i][j] = (i * 7 + j) % 11;
    for (int i = 0; i < 200; i++)
        for (int j = 1; j < 150; j++) a[i][j] += a[i][j - 1];
    for (int j = 0; j < 200; j++)
        for (int i = 1; i < 300; i++) flat[i * 200 + j] = flat[(i - 1) * 200 + j] + (i + j) % 5;
    long long t = 0;
    for (int i = 0; i < 200; i++)
        for (int j = 0; j < 150; j++) t += a[i][j];
    double u = 0;
    for (int i = 0; i < 300 * 200; i++) u += flat[i];
    double s = 0;
    for (int i = 0; i < 5000; i++) s += grid.v[i] + g[i] + ns::w[i] + S::w[i];
    long long bs = 0;
    for (int i = 0; i < 5000; i++) bs += b[i];
    std::printf("%.1f\n%.1f\n%lld %d\n%lld\n%.1f\n", s, re, bs, calls, t, u);
    std::printf("%d %d\n%.1f\n", a[199][149], a[5][0], flat[299 * 200 + 199]);
    return 0;
}
