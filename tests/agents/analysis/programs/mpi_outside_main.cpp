// Loops in functions that run before main starts or after it ends, where MPI does not run:
// one a file-scope initializer calls (main calls it too), one a static object's destructor
// calls, one in a function marked to run before main. Only main's own loops are divided.
#include <cstdio>
#include <vector>

static std::vector<long> weights(5003, 3);

static long total(const std::vector<long> &v) {
    long s = 0;
    for (size_t i = 0; i < v.size(); i++) s += v[i];
    return s;
}

static long early = total(weights);

static long squares(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += (long)i * i % 7;
    return s;
}

struct Report {
    ~Report() { std::printf("at exit %ld\n", squares(4001)); }
};

static Report report;

static long primed;

__attribute__((constructor)) static void prime(void) {
    long s = 0;
    for (int i = 0; i < 3001; i++) s += i % 5;
    primed = s;
}

int main() {
    std::vector<long> a(100003);
    for (size_t i = 0; i < a.size(); i++) a[i] = (long)(i * 7919 % 1009);
    long m = 0;
    for (size_t i = 0; i < a.size(); i++) m += a[i] % 13;
    std::printf("early %ld\nprimed %ld\nsum %ld\nagain %ld\n", early, primed, m, total(a));
    std::printf("%ld %ld\n%ld\n", a[5], a[100002], squares(10));
    return 0;
}
