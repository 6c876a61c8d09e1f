// pf.hpp: the shared part of every ParForge driver.
//
// Included before the solution, so it brings in every standard header a ParEval prompt assumes
// (the prompts use std::vector, std::complex, std::abs, std::numeric_limits, M_PI, INT_MAX,
// std::queue, std::stack, ... without including them). Everything the harness itself defines
// lives in namespace pf, so a solution can define Point, distance, fft, ... freely.
//
// The contract of a built driver: `prog SEED SIZE`. It generates its input from SEED with the
// portable generator below (the same numbers on every compiler, rank and host), runs the
// solution once, prints the answer on stdout (MPI: rank 0 only) and the time of the solution
// call alone as `PARFORGE_TIME_S=<seconds>` on stderr.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cfloat>
#include <chrono>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <limits>
#include <list>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <stack>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace pf {

// splitmix64: tiny, fast and defined bit for bit, unlike std::*_distribution.
class Rng {
 public:
  // The seed goes through the finaliser so that neighbouring seeds start far apart: a plain
  // `seed * gamma` start would make Rng(s + 1) replay Rng(s)'s stream shifted by one draw.
  explicit Rng(std::uint64_t seed) : state_(mix(seed + 0x632BE59BD9B4E019ULL)) {}

  std::uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ULL); }

  // Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }

  // Uniform integer in [lo, hi], both included.
  long long integer(long long lo, long long hi) {
    return lo + static_cast<long long>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }

  bool chance(double p) { return uniform(0.0, 1.0) < p; }

  // A random permutation of 0..n-1 (Fisher-Yates).
  std::vector<int> permutation(std::size_t n) {
    std::vector<int> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<int>(i);
    for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[static_cast<std::size_t>(integer(0, static_cast<long long>(i) - 1))]);
    return p;
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::uint64_t state_;
};

struct Args {
  std::uint64_t seed;
  std::size_t size;
};

inline Args parse_args(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SEED SIZE\n", argc > 0 ? argv[0] : "driver");
    std::exit(2);
  }
  char *end = nullptr;
  unsigned long long seed = std::strtoull(argv[1], &end, 10);
  if (*end != '\0') { std::fprintf(stderr, "bad SEED: %s\n", argv[1]); std::exit(2); }
  unsigned long long size = std::strtoull(argv[2], &end, 10);
  if (*end != '\0') { std::fprintf(stderr, "bad SIZE: %s\n", argv[2]); std::exit(2); }
  return Args{seed, static_cast<std::size_t>(size)};
}

// ---- timing: the solution call alone ------------------------------------------------------

// Set by the MPI main to a barrier, so the measured time spans the slowest rank.
inline void (*&sync_hook())() {
  static void (*hook)() = nullptr;
  return hook;
}

inline double &kernel_seconds() {
  static double seconds = -1.0;
  return seconds;
}

template <class F>
void timed(F &&call) {
  if (sync_hook()) sync_hook()();
  auto start = std::chrono::steady_clock::now();
  call();
  if (sync_hook()) sync_hook()();
  kernel_seconds() = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline void report_time() {
  if (kernel_seconds() >= 0.0) std::fprintf(stderr, "PARFORGE_TIME_S=%.9f\n", kernel_seconds());
}

// ---- printing ------------------------------------------------------------------------------
// Whitespace-separated tokens: labels compare exactly, numbers within the task's tolerance.
// Vectors longer than kFullPrint are printed as a summary, to keep the output of timing runs
// small: per numeric component (real and imaginary part of a complex), the sum of |v|, of v*v
// and a position-weighted sum of |v| (sums of non-negative terms, so a relative tolerance holds),
// then kSamples evenly spaced entries, which carry the signs.

constexpr std::size_t kFullPrint = 4096;
constexpr std::size_t kSamples = 64;

inline void put(double v) { std::printf(" %.15g", v == 0.0 ? 0.0 : v); }
inline void put(float v) { put(static_cast<double>(v)); }
inline void put(int v) { std::printf(" %d", v); }
inline void put(long v) { std::printf(" %ld", v); }
inline void put(long long v) { std::printf(" %lld", v); }
inline void put(unsigned v) { std::printf(" %u", v); }
inline void put(unsigned long v) { std::printf(" %lu", v); }
inline void put(unsigned long long v) { std::printf(" %llu", v); }
inline void put(bool v) { std::printf(" %s", v ? "true" : "false"); }
inline void put(std::complex<double> v) { put(v.real()); put(v.imag()); }

template <class T>
std::size_t parts(T const &) { return 1; }
inline std::size_t parts(std::complex<double> const &) { return 2; }
template <class T>
double part(T const &v, std::size_t) { return static_cast<double>(v); }
inline double part(std::complex<double> const &v, std::size_t c) { return c == 0 ? v.real() : v.imag(); }

template <class T>
void print(const char *label, T const &v) {
  std::printf("%s", label);
  put(v);
  std::printf("\n");
}

template <class T>
void print(const char *label, std::vector<T> const &v) {
  std::printf("%s %zu\n", label, v.size());
  if (v.size() <= kFullPrint) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      put(v[i]);
      if (i % 8 == 7 || i + 1 == v.size()) std::printf("\n");
    }
    return;
  }
  for (std::size_t c = 0; c < parts(v[0]); ++c) {
    double abs_sum = 0, sq_sum = 0, weighted = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      double m = part(v[i], c);
      abs_sum += std::fabs(m);
      sq_sum += m * m;
      weighted += std::fabs(m) * static_cast<double>(i % 13 + 1);
    }
    std::printf("summary");
    put(abs_sum);
    put(sq_sum);
    put(weighted);
    std::printf("\n");
  }
  std::printf("samples");
  for (std::size_t k = 0; k < kSamples; ++k) put(v[k * (v.size() - 1) / (kSamples - 1)]);
  std::printf("\n");
}

}  // namespace pf
