#include <cstdio>
#include <vector>
#include <omp.h>

struct Stats { double sum = 0; long n = 0; };
int main() {
    std::vector<double> x(1000);
    for (int i = 0; i < 1000; i++) x[i] = i * 0.1;
    Stats st;
    double sum = 0; long n = 0;
    #pragma omp parallel for reduction(+:sum, n)
    for (int i = 0; i < 1000; i++) {
        sum += x[i];
        n += 1;
    }
    st.sum = sum; st.n = n;
    std::printf("%.1f %ld\n", st.sum, st.n);
    return 0;
}
