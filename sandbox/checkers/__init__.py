"""Pure parsers and decisions used by `verify`: no I/O here, every function is unit-tested.

- `diagnostics`: gcc / clang / nvcc / ld messages into `Diagnostic`s;
- `compare`: program outputs, exactly or with a numeric tolerance;
- `tsan`: ThreadSanitizer (with Archer) reports into `Finding`s;
- `omp_static`: the static race pass (`simd` dependences, `ordered` misuse), which also runs
  the rules of `omp_sync` (lastprivate/nowait, task results), `omp_tasks` (depend clauses,
  taskwait and descendants, mergeable) and `omp_regions` (master/masked, critical names, teams,
  atomic flags, static locals, conditional shared writes), all on `omp_scope`'s data-sharing
  rules;
- `omp_rewrite`: the race checker's copy of a program: `schedule(runtime)` so that it can vary
  loop schedules, and `teams` run as one team of threads;
- `ptxas`: nvcc's `-Xptxas -v` resource report into `KernelResources`;
- `cuda_sanitizer`: compute-sanitizer (memcheck / racecheck / synccheck) reports;
- `clike`: the small C tokenizer the others share.
"""
