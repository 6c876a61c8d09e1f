#include <cstdio>
#include <vector>
#include <omp.h>

int main() {
    std::vector<int> out;
    out.reserve(2000);
    #pragma omp parallel for
    for (int i = 0; i < 1000; i++)
        if (i % 3 == 0) out.push_back(i);
    std::printf("%zu\n", out.size());
    return 0;
}
