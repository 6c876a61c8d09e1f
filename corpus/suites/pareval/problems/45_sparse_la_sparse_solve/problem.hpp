// 45_sparse_la_sparse_solve: solve Ax = b for a sparse NxN matrix A in COO format.
#pragma once

struct PfInput {
  std::size_t n;
  std::vector<COOElement> a;
  std::vector<double> b;
};

struct PfOutput {
  std::vector<double> x;
};

// SIZE is N. Every row holds about 5% off-diagonal entries (at least one, where N > 1) in
// [-1, 1) and a diagonal entry of random sign whose magnitude exceeds the row's other entries
// by 1 to 2: strictly diagonally dominant, so the system is well conditioned and any sound
// method (with or without pivoting, direct or iterative) reaches the same x. A is sorted by
// row, then column; b = A*x_true for x_true in [-10, 10).
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.n = n;
  double p = n > 1 ? std::max(0.05, 1.0 / static_cast<double>(n - 1)) : 0.0;
  std::vector<double> x_true(n);
  for (auto &v : x_true) v = rng.uniform(-10.0, 10.0);
  in.b.assign(n, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<COOElement> row;
    double off = 0.0;
    for (std::size_t c = 0; c < n; ++c) {
      if (c != r && rng.chance(p)) {
        row.push_back({r, c, rng.uniform(-1.0, 1.0)});
        off += std::fabs(row.back().value);
      }
    }
    double diagonal = (off + rng.uniform(1.0, 2.0)) * (rng.chance(0.5) ? 1.0 : -1.0);
    row.push_back({r, r, diagonal});
    std::sort(row.begin(), row.end(), [](COOElement const &u, COOElement const &v) { return u.column < v.column; });
    for (auto const &e : row) {
      in.a.push_back(e);
      in.b[r] += e.value * x_true[e.column];
    }
  }
  return in;
}

#ifndef __CUDACC__
// x arrives sized N and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.x.assign(in.n, 0.0);
  pf::timed([&] { solveLinearSystem(in.a, in.b, out.x, in.n); });
  return out;
}
#else
// "The kernel is launched with at least sizeA threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t size_a = in.a.size();
  PfOutput out;
  out.x.assign(in.n, 0.0);
  COOElement *a = pf::to_device(in.a);
  double *b = pf::to_device(in.b), *x = pf::to_device(out.x);
  pf::timed_kernel([&] { solveLinearSystem<<<pf::blocks(size_a, 256), 256>>>(a, size_a, b, x, in.n); });
  pf::to_host(out.x, x);
  pf::release(a);
  pf::release(b);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
