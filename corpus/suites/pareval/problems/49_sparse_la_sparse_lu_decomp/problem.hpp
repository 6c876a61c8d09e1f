// 49_sparse_la_sparse_lu_decomp: A = LU (L unit lower triangular, U upper triangular) for a
// sparse NxN matrix A in COO format; L and U dense NxN, row-major.
#pragma once

struct PfInput {
  std::size_t n;
  std::vector<COOElement> a;
};

struct PfOutput {
  std::vector<double> l, u;
};

// SIZE is N. Every row holds about 10% off-diagonal entries (at least one, where N > 1) in
// [-1, 1) and a diagonal entry of random sign whose magnitude exceeds the row's other entries
// by 1 to 2: strictly diagonally dominant, so A = LU exists without pivoting and is well
// conditioned. A is sorted by row, then column.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.n = n;
  double p = n > 1 ? std::max(0.1, 1.0 / static_cast<double>(n - 1)) : 0.0;
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<COOElement> row;
    double off = 0.0;
    for (std::size_t c = 0; c < n; ++c) {
      if (c != r && rng.chance(p)) {
        row.push_back({r, c, rng.uniform(-1.0, 1.0)});
        off += std::fabs(row.back().value);
      }
    }
    row.push_back({r, r, (off + rng.uniform(1.0, 2.0)) * (rng.chance(0.5) ? 1.0 : -1.0)});
    std::sort(row.begin(), row.end(), [](COOElement const &u, COOElement const &v) { return u.column < v.column; });
    in.a.insert(in.a.end(), row.begin(), row.end());
  }
  return in;
}

#ifndef __CUDACC__
// L and U arrive sized N*N and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.l.assign(in.n * in.n, 0.0);
  out.u.assign(in.n * in.n, 0.0);
  pf::timed([&] { luFactorize(in.a, out.l, out.u, in.n); });
  return out;
}
#else
// "The kernel is launched with at least sizeA threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t size_a = in.a.size();
  PfOutput out;
  out.l.assign(in.n * in.n, 0.0);
  out.u.assign(in.n * in.n, 0.0);
  COOElement *a = pf::to_device(in.a);
  double *l = pf::to_device(out.l), *u = pf::to_device(out.u);
  pf::timed_kernel([&] { luFactorize<<<pf::blocks(size_a, 256), 256>>>(a, size_a, l, u, in.n); });
  pf::to_host(out.l, l);
  pf::to_host(out.u, u);
  pf::release(a);
  pf::release(l);
  pf::release(u);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("L", out.l);
  pf::print("U", out.u);
}
