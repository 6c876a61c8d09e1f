#include <cstdio>
#include <vector>
#include <omp.h>

int main() {
    std::vector<int> out(1000);
    #pragma omp parallel for
    for (int i = 0; i < 1000; i++)
        out[i] = (i % 3 == 0) ? i : -1;
    long n = 0;
    for (int v : out) n += v >= 0;
    std::printf("%ld\n", n);
    return 0;
}
