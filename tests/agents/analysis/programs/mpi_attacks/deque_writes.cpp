#include <cstdio>
#include <cstdlib>
#include <deque>
int main(int argc, char **argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 10;
    std::deque<long> d(n);
    for (int i = 0; i < n; i++) d[i] = (long)i * 3 % 11 + 1;
    long t = 0;
    for (long x : d) t = t * 31 % 1000003 + x;
    std::printf("%ld\n", t);
    return 0;
}
