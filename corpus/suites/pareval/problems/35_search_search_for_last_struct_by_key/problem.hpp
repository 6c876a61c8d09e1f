// 35_search_search_for_last_struct_by_key: the index of the last book with fewer than 100 pages.
#pragma once

// Titles and page counts; the Books are made in pf_run, since the CUDA prompt's Book holds a
// `const char *` title where the others hold a std::string.
struct PfInput {
  std::vector<std::string> titles;
  std::vector<int> pages;
};

struct PfOutput {
  std::size_t index = 0;
};

// Short books (1-99 pages) are common, rare or very rare depending on the input, so the last
// one is sometimes far from the end; long books have 100-1000 pages, exactly 100 often enough
// that `<= 100` is caught. There is always at least one short book (the prompt does not say
// what to return otherwise).
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  static const double kShare[] = {0.5, 0.05, 0.0005};
  double share = kShare[rng.integer(0, 2)];
  PfInput in;
  in.titles.resize(n);
  in.pages.resize(n);
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) {
    in.titles[i] = "Book " + std::to_string(rng.integer(1, 999999));
    bool short_book = rng.chance(share);
    any = any || short_book;
    in.pages[i] = static_cast<int>(short_book ? rng.integer(1, 99) : rng.chance(0.1) ? 100 : rng.integer(100, 1000));
  }
  if (n > 0 && !any) in.pages[static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1))] = static_cast<int>(rng.integer(1, 99));
  // Half the inputs end with a short book, so a search that stops one short is caught.
  if (n > 1 && rng.chance(0.5)) in.pages[n - 1] = static_cast<int>(rng.integer(1, 99));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  std::vector<Book> books(in.titles.size());
  for (std::size_t i = 0; i < books.size(); ++i) books[i] = Book{in.titles[i], in.pages[i]};
  PfOutput out;
  pf::timed([&] { out.index = findLastShortBook(books); });
  return out;
}
#else
// "The kernel is launched with one thread for every book element": blocks of 256, so up to 255
// threads more. Titles point into one device buffer of NUL-terminated strings;
// lastShortBookIndex arrives as 0, as in ParEval's driver.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.titles.size();
  std::vector<char> text;
  std::vector<std::size_t> offsets(n);
  for (std::size_t k = 0; k < n; ++k) {
    offsets[k] = text.size();
    text.insert(text.end(), in.titles[k].begin(), in.titles[k].end());
    text.push_back('\0');
  }
  char *d_text = pf::to_device(text);
  std::vector<Book> books(n);
  for (std::size_t k = 0; k < n; ++k) books[k] = Book{d_text + offsets[k], in.pages[k]};
  Book *d_books = pf::to_device(books);
  size_t *index = pf::to_device(static_cast<size_t>(0));
  pf::timed_kernel([&] { findLastShortBook<<<pf::blocks(n, 256), 256>>>(d_books, n, index); });
  PfOutput out;
  out.index = pf::to_host(index);
  pf::release(d_books);
  pf::release(d_text);
  pf::release(index);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("index", out.index); }
