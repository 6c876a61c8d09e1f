// 28_reduce_smallest_odd_number: the smallest odd value of a vector of ints.
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  int smallest = 0;
  bool all_ranks = true;
};

// Non-negative values below 10^6 (as in ParEval, where x % 2 == 1 tests oddness); one in ten is
// odd, so the smallest odd value is usually larger than many even ones, and there is always at
// least one (the prompt does not say what to return otherwise).
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) {
    int half = static_cast<int>(rng.integer(0, 499999));
    v = rng.chance(0.1) ? 2 * half + 1 : 2 * half;
  }
  if (n > 0 && std::none_of(in.x.begin(), in.x.end(), [](int v) { return v % 2 == 1; })) {
    in.x[static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1))] |= 1;
  }
  return in;
}

#if defined(MPI_VERSION)
// The MPI prompt promises the result on all ranks: every rank's must equal rank 0's.
inline bool pf_same_on_all_ranks(int value) {
  int root = value;
  MPI_Bcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int same = value == root ? 1 : 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}
#endif

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.smallest = smallestOdd(in.x); });
#if defined(MPI_VERSION)
  out.all_ranks = pf_same_on_all_ranks(out.smallest);
#endif
  return out;
}
#else
// "The kernel is launched with the same number of threads as elements in x": blocks of 256,
// so up to 255 threads more. smallest arrives as INT_MAX, as in ParEval's driver.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x);
  int *smallest = pf::to_device(std::numeric_limits<int>::max());
  pf::timed_kernel([&] { smallestOdd<<<pf::blocks(n, 256), 256>>>(x, n, smallest); });
  PfOutput out;
  out.smallest = pf::to_host(smallest);
  pf::release(x);
  pf::release(smallest);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("smallest", out.smallest);
  if (!out.all_ranks) std::printf("not the same result on every rank\n");
}
