/* A function taking its vectors by reference (`const std::vector<double> &A`), called from
   main: its matrix-vector product and main's loops run as kernels. Usage: ref_params [N] */
#include <cstdio>
#include <cstdlib>
#include <vector>

void matvec(const std::vector<double> &A, const std::vector<double> &x, std::vector<double> &y,
            int n) {
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 1500;
    std::vector<double> A(n * n), x(n), y(n);
    for (int i = 0; i < n * n; ++i) A[i] = (i % 10) * 0.1;
    for (int i = 0; i < n; ++i) x[i] = 1.0 / (i + 1);
    matvec(A, x, y, n);
    double s = 0;
    for (int i = 0; i < n; ++i) s += y[i];
    std::printf("%.9f\n", s);
    return 0;
}
