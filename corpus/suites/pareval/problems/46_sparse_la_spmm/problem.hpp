// 46_sparse_la_spmm: Y = A*X for sparse A (MxK) and X (KxN) in COO format; Y dense MxN, row-major.
#pragma once

struct PfInput {
  std::size_t m, k, n;
  std::vector<COOElement> a, x;
};

struct PfOutput {
  std::vector<double> y;
};

// A random sparse matrix with about `per_row` entries per row (at most 30% of a row) at
// distinct columns, sorted by row, then column; values in [-1, 1).
inline std::vector<COOElement> pf_sparse(pf::Rng &rng, std::size_t rows, std::size_t cols, double per_row) {
  std::vector<COOElement> out;
  double p = std::min(0.3, per_row / static_cast<double>(cols));
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      if (rng.chance(p)) out.push_back({r, c, rng.uniform(-1.0, 1.0)});
    }
  }
  return out;
}

// SIZE is M; K = M + 1 and N = M + 2, so mixing up the dimensions shows. A and X hold about
// 200 entries per row (30% of a row, for small sizes).
inline PfInput pf_generate(pf::Rng &seeded, std::size_t size) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.m = size;
  in.k = size + 1;
  in.n = size + 2;
  in.a = pf_sparse(rng, in.m, in.k, 200.0);
  in.x = pf_sparse(rng, in.k, in.n, 200.0);
  return in;
}

#ifndef __CUDACC__
// Y arrives sized M*N and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.y.assign(in.m * in.n, 0.0);
  pf::timed([&] { spmm(in.a, in.x, out.y, in.m, in.k, in.n); });
  return out;
}
#else
// "The kernel is launched with at least sizeA threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t size_a = in.a.size(), size_x = in.x.size();
  PfOutput out;
  out.y.assign(in.m * in.n, 0.0);
  COOElement *a = pf::to_device(in.a), *x = pf::to_device(in.x);
  double *y = pf::to_device(out.y);
  pf::timed_kernel([&] { spmm<<<pf::blocks(size_a, 256), 256>>>(a, size_a, x, size_x, y, in.m, in.k, in.n); });
  pf::to_host(out.y, y);
  pf::release(a);
  pf::release(x);
  pf::release(y);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("Y", out.y); }
