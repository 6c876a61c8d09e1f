"""Pure parsers and decisions used by `verify`: no I/O here, every function is unit-tested.

- `diagnostics`: gcc / clang / nvcc / ld messages into `Diagnostic`s;
- `compare`: program outputs, exactly or with a numeric tolerance;
- `tsan`: ThreadSanitizer (with Archer) reports into `Finding`s;
- `omp_static`: the static pass for `simd` dependences and `ordered` misuse, and the
  `schedule(runtime)` rewrite that lets the race checker vary loop schedules;
- `ptxas`: nvcc's `-Xptxas -v` resource report into `KernelResources`;
- `cuda_sanitizer`: compute-sanitizer (memcheck / racecheck / synccheck) reports;
- `clike`: the small C tokenizer the others share.
"""
