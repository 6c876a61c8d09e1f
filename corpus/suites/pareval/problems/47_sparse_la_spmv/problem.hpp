// 47_sparse_la_spmv: y = alpha*A*x + beta*y for a sparse MxN matrix A in COO format.
#pragma once

struct PfInput {
  double alpha, beta;
  std::size_t m, n;
  std::vector<COOElement> a;
  std::vector<double> x, y;
};

struct PfOutput {
  std::vector<double> y;
};

// SIZE is M; N = M + 3. Every row holds 0 to 16 entries (8 on average, some rows empty) at
// distinct random columns; A is sorted by row, then column. Values, x and y in [-1, 1);
// alpha and beta in [-2, 2).
inline PfInput pf_generate(pf::Rng &seeded, std::size_t size) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.m = size;
  in.n = size + 3;
  in.alpha = rng.uniform(-2.0, 2.0);
  in.beta = rng.uniform(-2.0, 2.0);
  std::vector<std::size_t> columns;
  for (std::size_t row = 0; row < in.m; ++row) {
    columns.clear();
    long long k = rng.integer(0, 16);
    for (long long e = 0; e < k; ++e) columns.push_back(static_cast<std::size_t>(rng.integer(0, static_cast<long long>(in.n) - 1)));
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    for (std::size_t c : columns) in.a.push_back({row, c, rng.uniform(-1.0, 1.0)});
  }
  in.x.resize(in.n);
  in.y.resize(in.m);
  for (auto &v : in.x) v = rng.uniform(-1.0, 1.0);
  for (auto &v : in.y) v = rng.uniform(-1.0, 1.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.y};
  pf::timed([&] { spmv(in.alpha, in.a, in.x, in.beta, out.y, in.m, in.n); });
  return out;
}
#else
// "The kernel will be launched with at least sizeA threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t size_a = in.a.size();
  PfOutput out{in.y};
  COOElement *a = pf::to_device(in.a);
  double *x = pf::to_device(in.x), *y = pf::to_device(in.y);
  pf::timed_kernel([&] { spmv<<<pf::blocks(size_a, 256), 256>>>(in.alpha, a, size_a, x, in.beta, y, in.m, in.n); });
  pf::to_host(out.y, y);
  pf::release(a);
  pf::release(x);
  pf::release(y);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("y", out.y); }
