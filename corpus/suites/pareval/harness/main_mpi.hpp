// main_mpi.hpp: main() of the MPI drivers.
//
// ParEval's MPI prompts promise that every rank has a complete copy of the input, so every
// rank generates the same input from the same seed; the answer is the one on rank 0, the only
// rank that prints. Barriers around the solution call make the reported time the slowest rank's.
#pragma once

#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pf::sync_hook() = [] { MPI_Barrier(MPI_COMM_WORLD); };
  pf::Args args = pf::parse_args(argc, argv);
  pf::Rng rng(args.seed);
  auto input = pf_generate(rng, args.size);
  auto output = pf_run(input);
  if (rank == 0) {
    pf_print(output);
    std::fflush(stdout);
    pf::report_time();
  }
  MPI_Finalize();
  return 0;
}
