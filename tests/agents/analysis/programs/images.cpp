/* An image as one vector of rows whose width is a constant (`const int W = 640;`, the size
   written `W * H`): a box blur by rows, a brightness map, a sum; and a loop whose columns run
   past the width it indexes rows by, which no rank may divide by rows. Usage: images */
#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    const int W = 640, H = 480, P = W + 3;
    std::vector<unsigned char> in(W * H), out(W * H);
    std::vector<int> wide(H * P + 3);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) in[y * W + x] = (unsigned char)((x * 7 + y * 13) % 256);
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            int sum = 0, cnt = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int yy = std::min(std::max(y + dy, 0), H - 1);
                    int xx = std::min(std::max(x + dx, 0), W - 1);
                    sum += in[yy * W + xx];
                    ++cnt;
                }
            out[y * W + x] = (unsigned char)(sum / cnt);
        }
    }
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < P; ++x) wide[y * W + x] = x + y;  // rows overlap: W < P
    long total = 0;
    for (int i = 0; i < W * H; ++i) total += out[i];
    std::printf("%ld %d %d %d\n", total, out[W * 10 + 10], out[W * H - 1], wide[W * 5 + 641]);
    for (int y = 0; y < H; y += 60) std::printf("%d %d\n", out[y * W], wide[y * W + 2]);
    return 0;
}
