// 23_histogram_first_letter_counts: how many strings start with each letter a-z.
#pragma once

struct PfInput {
  std::vector<std::string> s;
};

struct PfOutput {
  std::array<size_t, 26> bins;
};

// Lower-case words of 1-10 letters; first letters follow a skewed distribution (as in English
// text) so the counts differ from letter to letter.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.s.resize(n);
  for (auto &word : in.s) {
    std::size_t length = static_cast<std::size_t>(rng.integer(1, 10));
    word.resize(length);
    word[0] = static_cast<char>('a' + std::min(rng.integer(0, 25), rng.integer(0, 25)));
    for (std::size_t k = 1; k < length; ++k) word[k] = static_cast<char>('a' + rng.integer(0, 25));
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.bins.fill(0);
  pf::timed([&] { firstLetterCounts(in.s, out.bins); });
  return out;
}
#else
// "The kernel is launched with at least N threads." s is an array of N device pointers to
// NUL-terminated strings; bins arrives zeroed.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.s.size();
  std::vector<char> text;
  std::vector<std::size_t> offsets(n);
  for (std::size_t k = 0; k < n; ++k) {
    offsets[k] = text.size();
    text.insert(text.end(), in.s[k].begin(), in.s[k].end());
    text.push_back('\0');
  }
  char *d_text = pf::to_device(text);
  std::vector<const char *> pointers(n);
  for (std::size_t k = 0; k < n; ++k) pointers[k] = d_text + offsets[k];
  const char **s = pf::to_device(pointers);
  std::vector<size_t> bins(26, 0);
  size_t *d_bins = pf::to_device(bins);
  pf::timed_kernel([&] { firstLetterCounts<<<pf::blocks(n, 256), 256>>>(s, n, d_bins); });
  PfOutput out;
  pf::to_host(bins, d_bins);
  std::copy(bins.begin(), bins.end(), out.bins.begin());
  pf::release(s);
  pf::release(d_text);
  pf::release(d_bins);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("bins", std::vector<size_t>(out.bins.begin(), out.bins.end()));
}
