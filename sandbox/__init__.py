"""Build, test, race-check and time parallel programs in isolated sandboxes.

Depends on nothing else in the project. Entry points: `sandbox.backends.open_sandbox(config)`
gives a `Sandbox` (the backends run candidate code); `sandbox.verify.verify(sandbox, spec,
candidate)` gives a `Verdict` (the verifier judges it).
"""
