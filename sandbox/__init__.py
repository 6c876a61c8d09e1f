"""Build, test, race-check and time parallel programs in isolated sandboxes.

Depends on nothing else in the project. Entry points: a backend config's `.build()` gives a
`Sandbox`; `verify(sandbox, spec, candidate)` gives a `Verdict`.
"""
