"""The behaviour fingerprint: how a finished thread's program behaves on a few tiny inputs.

After the threads end, each candidate is built and run in the sandbox on the spec's smallest
two or three inputs at one small thread (rank) count, with no race check and no timing
(`Judge.probe`). Two candidates whose outputs agree and whose parallel structure is the same
compute the same thing the same way: only the first goes on to the full verification.
"""

from __future__ import annotations

import hashlib

from sandbox.spec import Spec
from sandbox.verdict import Verdict

TINY_TESTS = 3


def probe_spec(spec: Spec, tests: int = TINY_TESTS) -> Spec:
    """The spec cut down to its first (smallest) inputs, two workers, no timing input."""
    return spec.model_copy(
        update={
            "tests": spec.tests[:tests],
            "timing": None,
            "threads": [2],
            "ranks": [2],
            "timing_repeats": 1,
        }
    )


def behaviour_key(verdict: Verdict, structure: str) -> str:
    """A digest of the probe's outcome (status, and each candidate run's exit code and output)
    with the program's parallel structure."""
    digest = hashlib.sha256()
    digest.update(verdict.status.value.encode())
    if verdict.build is not None and not verdict.build.ok:
        # Programs that do not build have no behaviour; their structure tells them apart.
        digest.update(b"\0no build")
    runs = sorted(  # by name: the sandbox may finish (and record) runs in any order
        f"\0{step.name}\0{step.exit_code}\0{step.stdout.rstrip()}"
        for step in verdict.steps
        if step.name.startswith("run candidate")
    )
    for run in runs:
        digest.update(run.encode())
    digest.update(b"\0" + structure.encode())
    return digest.hexdigest()
