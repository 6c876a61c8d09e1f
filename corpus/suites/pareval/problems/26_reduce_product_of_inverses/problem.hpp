// 26_reduce_product_of_inverses: x_0 * 1/x_1 * x_2 * 1/x_3 * ...
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  double product = 0.0;
  bool all_ranks = true;
};

// Values in [0.98, 1.02): the product stays finite at any size, and leaving out one factor,
// or inverting the wrong one, still changes it far beyond the tolerance.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = rng.uniform(0.98, 1.02);
  return in;
}

#if defined(MPI_VERSION)
// The MPI prompt promises the product on all ranks: every rank's must equal rank 0's.
inline bool pf_same_on_all_ranks(double value) {
  double root = value;
  MPI_Bcast(&root, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int same = std::fabs(value - root) <= 1e-9 * std::fabs(root) ? 1 : 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}
#endif

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.product = productWithInverses(in.x); });
#if defined(MPI_VERSION)
  out.all_ranks = pf_same_on_all_ranks(out.product);
#endif
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x." product arrives 1.0.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  double *x = pf::to_device(in.x);
  double *product = pf::to_device(1.0);
  pf::timed_kernel([&] { productWithInverses<<<pf::blocks(n, 256), 256>>>(x, n, product); });
  PfOutput out;
  out.product = pf::to_host(product);
  pf::release(x);
  pf::release(product);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("product", out.product);
  if (!out.all_ranks) std::printf("not the same result on every rank\n");
}
