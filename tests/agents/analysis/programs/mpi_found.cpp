// Searches that set what they found where they leave (`{ found = i; break; }`), found at the
// start, further on and nowhere, and a histogram whose bin the body computes
// first (`int b = ...; hist[b]++;`), into a vector whose length is known at run time.
#include <cstdio>
#include <vector>

static int first_above(const std::vector<int> &v, int limit, int *seen) {
    int found = -1;
    int value = 0;
    for (int i = 0; i < (int)v.size(); i++) {
        if (v[i] > limit) {
            found = i;
            value = v[i];
            break;
        }
    }
    *seen = value;
    return found;
}

int main() {
    const int n = 100003;
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) v[i] = (int)((i * 7919L) % 10007);
    for (int limit : {-1, 5000, 10005, 10006, 20000}) {
        int seen = 0;
        int at = first_above(v, limit, &seen);
        std::printf("above %d: %d %d\n", limit, at, seen);
    }
    for (int target : {0, 1433, 9990, 4242}) {
        long where = -2;
        int steps = 0;
        for (long i = 0; i < n; i++) {
            if (v[i] == target && i > 10) {
                where = i;
                steps = 1;
                break;
            }
        }
        std::printf("find %d: %ld %d\n", target, where, steps);
    }
    std::vector<long> hist(13, 0);
    for (int i = 0; i < n; i++) {
        int b = v[i] % 13;
        hist[b] += 2;
    }
    for (int b = 0; b < 13; b++) std::printf("bin %d: %ld\n", b, hist[b]);
    return 0;
}
