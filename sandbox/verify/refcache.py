"""Reference results shared by the verifications of one spec: what `verify` need not redo.

A spec's sequential reference gives the same answers whatever the candidate. An eval verifies K
samples of every task against one spec; running the reference on every visible test once per
spec instead of once per sample saves work without checking any candidate less (a behaviour
probe, which runs no hidden input and no timing, then needs no reference build at all). Pass one `ReferenceCache` to every `verify` call that
should share it:

    cache = ReferenceCache()
    verdicts = [await verify(sandbox, spec, c, reference_cache=cache) for c in candidates]

An entry is keyed by everything that decides how the reference behaves (its sources, flags,
tests, timing input, time-out, the toolchain it is built with) and filled in under the entry's
lock by the first verification of the spec, before it writes any candidate file into its freshly
leased workspace (see `sandbox.verify`): no candidate process has run where a cached result was
made. The verifications that start meanwhile wait for it. Only successes are kept: a reference
that does not build or run is retried, and reported, by every verification. The cache lives in memory for one
process and trusts one sandbox image: make a new one for another image.

Timing is never cached: a candidate is only ever compared with reference runs timed in turn
with its own (`sandbox.verify.speedup`), and hidden inputs are drawn afresh for every verification, so
the reference is still built in each one; what the cache saves is its runs on the visible tests.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field

from sandbox.checkers.integrity import Allowances
from sandbox.spec import Spec, Target
from sandbox.toolchains import reference_toolchain


@dataclass
class ReferenceResults:
    """What is known so far about one spec's reference."""

    outputs: dict[str, str] | None = None
    """stdout of the reference on each test, by test name."""
    allowed: Allowances | None = None
    """What the reference's object does that candidates may do too."""


@dataclass
class CacheStats:
    """How often each part was reused or computed (for benchmarks and logs)."""

    hits: dict[str, int] = field(default_factory=dict)
    misses: dict[str, int] = field(default_factory=dict)

    def count(self, part: str, hit: bool) -> None:
        counter = self.hits if hit else self.misses
        counter[part] = counter.get(part, 0) + 1


class ReferenceCache:
    """Reference outputs per spec, shared by concurrent `verify` calls."""

    def __init__(self) -> None:
        self._entries: dict[str, ReferenceResults] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.stats = CacheStats()

    @staticmethod
    def key(spec: Spec, target: Target) -> str:
        """A digest of everything the reference's behaviour depends on."""
        toolchain = reference_toolchain(target)
        relevant = {
            "toolchain": type(toolchain).__name__,
            "language": spec.language,
            "reference": spec.reference,
            "files": spec.files,
            "tests": [t.model_dump() for t in spec.tests],
            "timing": spec.timing_case.model_dump(),
            "cflags": spec.cflags,
            "libs": spec.libs,
            "timeout_s": spec.timeout_s,
            "timing_repeats": spec.timing_repeats,
        }
        text = json.dumps(relevant, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def entry(self, key: str) -> ReferenceResults:
        """The entry for `key` (empty at first); read it under `lock(key)` to fill it in."""
        return self._entries.setdefault(key, ReferenceResults())

    def lock(self, key: str) -> asyncio.Lock:
        """Held while a verification computes a missing part of the entry."""
        return self._locks.setdefault(key, asyncio.Lock())

    def __len__(self) -> int:
        return len(self._entries)
