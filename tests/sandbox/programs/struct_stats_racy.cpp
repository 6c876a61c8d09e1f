#include <cstdio>
#include <vector>
#include <omp.h>

struct Stats { double sum = 0; long n = 0; };
int main() {
    std::vector<double> x(1000);
    for (int i = 0; i < 1000; i++) x[i] = i * 0.1;
    Stats st;
    #pragma omp parallel for
    for (int i = 0; i < 1000; i++) {
        st.sum += x[i];
        st.n += 1;
    }
    std::printf("%.1f %ld\n", st.sum, st.n);
    return 0;
}
