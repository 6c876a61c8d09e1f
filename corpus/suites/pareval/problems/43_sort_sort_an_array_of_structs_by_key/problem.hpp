// 43_sort_sort_an_array_of_structs_by_key: sort Result structs by startTime, ascending, in place.
#pragma once

struct PfInput {
  std::vector<Result> results;
};

struct PfOutput {
  std::vector<Result> results;
};

// Distinct start times (2*p + 0 or 1 for a random permutation p), so the sorted order is unique
// and an unstable sort is as right as a stable one; durations in [1, 10], values in [-1, 1).
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  std::vector<int> p = rng.permutation(n);
  in.results.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    in.results[i].startTime = 2 * p[i] + static_cast<int>(rng.integer(0, 1));
    in.results[i].duration = static_cast<int>(rng.integer(1, 10));
    in.results[i].value = static_cast<float>(rng.uniform(-1.0, 1.0));
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.results};
  pf::timed([&] { sortByStartTime(out.results); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as there are elements."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.results.size();
  PfOutput out{in.results};
  Result *results = pf::to_device(in.results);
  pf::timed_kernel([&] { sortByStartTime<<<pf::blocks(n, 256), 256>>>(results, n); });
  pf::to_host(out.results, results);
  pf::release(results);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  std::vector<int> start, duration;
  std::vector<float> value;
  for (auto const &r : out.results) {
    start.push_back(r.startTime);
    duration.push_back(r.duration);
    value.push_back(r.value);
  }
  pf::print("startTime", start);
  pf::print("duration", duration);
  pf::print("value", value);
}
