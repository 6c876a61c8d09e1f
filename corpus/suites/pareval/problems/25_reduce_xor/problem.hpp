// 25_reduce_xor: the logical XOR of a vector of bools (true when an odd number are true).
#pragma once

struct PfInput {
  std::vector<bool> x;
};

struct PfOutput {
  bool result = false;
  bool all_ranks = true;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) in.x[i] = rng.chance(0.5);
  return in;
}

#if defined(MPI_VERSION)
// The MPI prompt promises the result on all ranks: every rank's must equal rank 0's.
inline bool pf_same_on_all_ranks(bool value) {
  int mine = value ? 1 : 0, root = mine;
  MPI_Bcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int same = mine == root ? 1 : 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}
#endif

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.result = reduceLogicalXOR(in.x); });
#if defined(MPI_VERSION)
  out.all_ranks = pf_same_on_all_ranks(out.result);
#endif
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x." output arrives false.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  // std::vector<bool> is packed bits (and pf's device helpers go through std::vector, so they
  // cannot take bools either): bools travel as bytes, a bool's representation.
  static_assert(sizeof(bool) == 1, "a bool is one byte");
  std::vector<unsigned char> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = in.x[i] ? 1 : 0;
  bool *x = reinterpret_cast<bool *>(pf::to_device(bytes));
  bool *output = reinterpret_cast<bool *>(pf::to_device(std::vector<unsigned char>{0}));
  pf::timed_kernel([&] { reduceLogicalXOR<<<pf::blocks(n, 256), 256>>>(x, n, output); });
  std::vector<unsigned char> result(1);
  pf::to_host(result, reinterpret_cast<unsigned char *>(output));
  PfOutput out;
  out.result = result[0] != 0;
  pf::release(x);
  pf::release(output);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("xor", out.result);
  if (!out.all_ranks) std::printf("not the same result on every rank\n");
}
