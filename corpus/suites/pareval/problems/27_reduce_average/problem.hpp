// 27_reduce_average: the mean of a vector of doubles.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  double average = 0.0;
  bool all_ranks = true;
};

// Values in [-20, 100): the mean is far from 0, so a relative tolerance is meaningful.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = rng.uniform(-20.0, 100.0);
  return in;
}

#if defined(MPI_VERSION)
// The MPI prompt promises the average on all ranks: every rank's must equal rank 0's.
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
  pf::timed([&] { out.average = average(in.x); });
#if defined(MPI_VERSION)
  out.all_ranks = pf_same_on_all_ranks(out.average);
#endif
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x." average arrives 0.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  double *x = pf::to_device(in.x);
  double *result = pf::to_device(0.0);
  pf::timed_kernel([&] { average<<<pf::blocks(n, 256), 256>>>(x, n, result); });
  PfOutput out;
  out.average = pf::to_host(result);
  pf::release(x);
  pf::release(result);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("average", out.average);
  if (!out.all_ranks) std::printf("not the same result on every rank\n");
}
