// Output through every standard C++ stream, wide ones too, checked at the end: printed once
// (by rank 0), and every rank's streams stay good.
#include <iostream>
#include <vector>

int main() {
    const int n = 100003;
    std::vector<long> a(n);
    for (int i = 0; i < n; i++) a[i] = (i * 7919L) % 1009;
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    for (int k = 0; k < 4; k++) std::cout << "narrow " << k << ": " << s + k << "\n";
    for (int k = 0; k < 4; k++) std::wcout << L"wide " << k << L": " << s - k << L"\n";
    std::clog << "to the log\n";
    std::wcerr << L"to the wide error stream\n";
    std::cout << "end" << std::endl;
    return std::cout.good() && std::wcout.good() && std::clog.good() ? 0 : 2;
}
