// 54_stencil_game_of_life: one generation of Conway's Game of Life on an NxN grid whose
// outside is dead (no wrap-around).
#pragma once

struct PfInput {
  std::size_t n;
  std::vector<int> input;
};

struct PfOutput {
  std::vector<int> output;
};

// SIZE is N, the side of the grid; about 30% of the cells are alive.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in{n, std::vector<int>(n * n)};
  for (auto &v : in.input) v = rng.chance(0.3) ? 1 : 0;
  return in;
}

#ifndef __CUDACC__
// output arrives sized N*N and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.output.assign(in.n * in.n, 0);
  pf::timed([&] { gameOfLife(in.input, out.output, in.n); });
  return out;
}
#else
// "The kernel is launched on an NxN grid of threads": x counts columns, y counts rows.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.n;
  PfOutput out;
  out.output.assign(n * n, 0);
  int *input = pf::to_device(in.input), *output = pf::to_device(out.output);
  dim3 threads(16, 16), blocks(pf::blocks(n, 16), pf::blocks(n, 16));
  pf::timed_kernel([&] { gameOfLife<<<blocks, threads>>>(input, output, n); });
  pf::to_host(out.output, output);
  pf::release(input);
  pf::release(output);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("output", out.output); }
