#include <cstdio>
#include <iostream>
#include <vector>
int main() {
    int n = 0;
    if (std::scanf("%d", &n) != 1) n = 0;
    std::vector<long> a(n);
    for (int i = 0; i < n; i++) std::cin >> a[i];
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    std::printf("%ld\n", s);
    return 0;
}
