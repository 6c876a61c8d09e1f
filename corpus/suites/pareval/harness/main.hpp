// main.hpp: main() of the serial, OpenMP and CUDA drivers.
//
// Included after the problem header, which defines pf_generate (input from the seeded
// generator), pf_run (calls the solution inside pf::timed) and pf_print (the answer).
#pragma once

int main(int argc, char **argv) {
  pf::Args args = pf::parse_args(argc, argv);
  pf::Rng rng(args.seed);
  auto input = pf_generate(rng, args.size);
  auto output = pf_run(input);
  pf_print(output);
  std::fflush(stdout);
  pf::report_time();
  return 0;
}
