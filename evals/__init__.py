"""Batch evaluation of models over benchmark suites: runner, metrics (pass@k, build@k,
speedup@k, efficiency@k) and reports. Uses `agents`, `corpus` and `sandbox`.
"""
