// 52_stencil_1d_jacobi_3-point_stencil: output[i] = (input[i-1] + input[i] + input[i+1]) / 3,
// with 0 outside the vector.
#pragma once

struct PfInput {
  std::vector<double> input;
};

struct PfOutput {
  std::vector<double> output;
};

// Values in [-10, 10).
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.input.resize(n);
  for (auto &v : in.input) v = rng.uniform(-10.0, 10.0);
  return in;
}

#ifndef __CUDACC__
// output arrives sized like input and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.output.assign(in.input.size(), 0.0);
  pf::timed([&] { jacobi1D(in.input, out.output); });
  return out;
}
#else
// "The kernel is launched with at least N threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.input.size();
  PfOutput out;
  out.output.assign(n, 0.0);
  double *input = pf::to_device(in.input), *output = pf::to_device(out.output);
  pf::timed_kernel([&] { jacobi1D<<<pf::blocks(n, 256), 256>>>(input, output, n); });
  pf::to_host(out.output, output);
  pf::release(input);
  pf::release(output);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("output", out.output); }
