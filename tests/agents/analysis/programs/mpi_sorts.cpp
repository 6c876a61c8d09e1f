// Sorts of whole vectors, run as rank blocks merged on every rank: of numbers, of structs by
// a key with ties (a stable sort keeps their order), of complex numbers by magnitude, with
// std::greater, one too short to divide; near misses left as they are: a comparison that
// counts its calls, a vector of structs holding a pointer.
#include <algorithm>
#include <complex>
#include <cstdio>
#include <functional>
#include <vector>

struct Job {
    int start;
    double cost;
};

struct Named {
    const char *name;
    int key;
};

int main() {
    const int n = 100003;
    std::vector<long> v(n);
    for (int i = 0; i < n; i++) v[i] = (long)((i * 7919L) % 100003) - 50000;
    std::sort(v.begin(), v.end());
    std::vector<Job> jobs(5001);
    for (int i = 0; i < 5001; i++) jobs[i] = {(int)((i * 31L) % 5001), i * 0.5};
    std::stable_sort(jobs.begin(), jobs.end(), [](const Job &a, const Job &b) {
        return a.start / 10 < b.start / 10;
    });
    std::vector<std::complex<double>> z(3001);
    for (int i = 0; i < 3001; i++) z[i] = std::polar(1.0 + (i * 17 % 3001), i * 0.1);
    std::sort(z.begin(), z.end(), [](std::complex<double> a, std::complex<double> b) {
        return std::abs(a) < std::abs(b);
    });
    std::vector<int> few = {5, 3, 9, 1, 7};
    std::sort(few.begin(), few.end(), std::greater<int>());
    long calls = 0;
    std::vector<int> counted(2001);
    for (int i = 0; i < 2001; i++) counted[i] = (i * 37) % 2001;
    std::sort(counted.begin(), counted.end(), [&calls](int a, int b) {
        calls++;
        return a < b;
    });
    std::vector<Named> named(1000);
    for (int i = 0; i < 1000; i++) named[i] = {"n", (i * 13) % 1000};
    std::sort(named.begin(), named.end(), [](const Named &a, const Named &b) { return a.key < b.key; });
    long s = 0;
    for (int i = 0; i < n; i++) s += v[i] * (i % 7);
    std::printf("%ld %ld %ld %ld\n", s, v[0], v[n / 2], v[n - 1]);
    double c = 0;
    for (int i = 0; i < 5001; i++) c += jobs[i].cost * (i % 3);
    std::printf("%d %d %d %.1f\n", jobs[0].start, jobs[2500].start, jobs[5000].start, c);
    std::printf("%.3f %.3f %.3f\n", std::abs(z[0]), std::abs(z[1500]), std::abs(z[3000]));
    std::printf("%d %d %d\n", few[0], few[2], few[4]);
    std::printf("%d %d %d %d\n", counted[0], counted[1000], counted[2000], calls > 0);
    std::printf("%d %d %s\n", named[0].key, named[999].key, named[5].name);
    std::printf("done\n");
    return 0;
}
