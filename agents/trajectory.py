"""What the prompt-mode runner stores, and the line it ends with (pure functions).

One model call that returns `n` samples becomes `n` `llm_call` steps with the same messages
(one per choice), so that exports can pair samples of one prompt. Latency and time to first
token are the call's and appear on each of them; the call's token counts appear on the first
step only, so that summing steps counts each token once.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from agents.core.join import best_of
from agents.identity import Identity
from agents.llm import CallRecord
from agents.targets import KITS, kit
from corpus.store.models import StepCreate, StepKind
from sandbox.spec import Spec, Target
from sandbox.verdict import Verdict

GENERATE = "generate"
"""Name of the steps that ask the model for candidates."""
VERIFY = "verify"
"""Name (and tool name) of the steps that verify a candidate in the sandbox."""


def _sampling(record: CallRecord) -> dict[str, Any]:
    values = record.sampling.model_dump(exclude_none=True)
    if not values.get("stop"):
        values.pop("stop", None)
    if not values.get("ignore_eos"):
        values.pop("ignore_eos", None)
    if record.response_format is not None:
        values["response_format"] = record.response_format
    if record.schema_refused:
        values["schema_refused"] = record.schema_refused
    return values


def llm_steps(record: CallRecord, identity: Identity) -> list[StepCreate]:
    """The steps of one finished or failed call: one per choice (one, with the error, if none)."""
    messages = [m.model_dump(exclude_none=True) for m in record.messages or []]
    finished = record.started_at + timedelta(seconds=record.latency_s)
    usage = record.usage
    common: dict[str, Any] = {
        "kind": StepKind.LLM_CALL,
        "name": GENERATE,
        "model": identity.model,
        "adapter": identity.adapter,
        "messages": messages,
        "ttft_s": record.ttft_s,
        "latency_s": record.latency_s,
        "started_at": record.started_at,
        "finished_at": finished,
        "error": record.error,
    }
    if record.status != "ok" or not record.choices:
        # A failed call leaves no samples to use, only its cost and its error.
        return [
            StepCreate(
                **common,
                sampling=_sampling(record) | {"call_id": record.id},
                prompt_tokens=usage.prompt_tokens if usage else None,
                completion_tokens=usage.completion_tokens if usage else None,
                cached_tokens=usage.cached_tokens if usage else None,
            )
        ]
    steps = []
    for position, choice in enumerate(record.choices):
        first = position == 0
        steps.append(
            StepCreate(
                **common,
                response={"role": "assistant", "content": choice.text},
                sampling=_sampling(record)
                | {
                    "call_id": record.id,
                    "choice": choice.index,
                    "finish_reason": choice.finish_reason,
                },
                prompt_tokens=usage.prompt_tokens if usage and first else None,
                completion_tokens=usage.completion_tokens if usage and first else None,
                cached_tokens=usage.cached_tokens if usage and first else None,
            )
        )
    return steps


def verify_arguments(candidate_id: int, spec: Spec, target: Target, how: str) -> dict[str, Any]:
    """What a `verify` step was asked: which candidate, against which tests and counts."""
    target_kit = kit(target)
    counts = target_kit.counts(spec.threads, spec.ranks)
    arguments: dict[str, Any] = {
        "candidate_id": candidate_id,
        "target": target.value,
        "tests": [case.name for case in spec.tests],
        "timing_test": spec.timing_case.name,
        "extracted": how,
    }
    if counts is not None and target_kit.unit is not None:
        arguments[target_kit.unit + "s"] = counts
    return arguments


def verdict_summary(verdict: Verdict) -> dict[str, Any]:
    """A compact account of a verdict for the `verify` step's result (the full one is stored
    as the candidate's verdict)."""
    summary: dict[str, Any] = {"status": verdict.status.value, "reason": verdict.reason}
    if verdict.build is not None:
        summary["build_ok"] = verdict.build.ok
        summary["diagnostics"] = len(verdict.build.diagnostics)
    if verdict.equivalence is not None and verdict.equivalence.outcomes:
        outcomes = verdict.equivalence.outcomes
        summary["test_runs_ok"] = f"{sum(o.ok for o in outcomes)}/{len(outcomes)}"
    if verdict.concurrency is not None:
        c = verdict.concurrency
        summary["concurrency"] = c.not_run or ("clean" if c.ok else f"{len(c.findings)} finding(s)")
    if verdict.timing is not None:
        summary["speedup"] = {str(n): round(s, 3) for n, s in verdict.timing.speedup.items()}
    summary["duration_s"] = verdict.duration_s
    return summary


@dataclass
class Tally:
    """The verdicts of one run so far, by candidate id."""

    verdicts: dict[int, Verdict] = field(default_factory=dict)

    def add(self, candidate_id: int, verdict: Verdict) -> None:
        self.verdicts[candidate_id] = verdict

    def best(self) -> int | None:
        """The best passed candidate, by the join's rule (`agents.core.join.best`)."""
        return best_of(self.verdicts)

    def unjudged(self) -> int | None:
        """The first candidate that built but could not be run here (`not_run` with a build
        that succeeded: a CUDA program on a host without a GPU), if none passed."""
        for candidate_id, verdict in self.verdicts.items():
            if verdict.status == "not_run" and verdict.build is not None and verdict.build.ok:
                return candidate_id
        return None

    def reason(self, made: int, best: int | None = None) -> str:
        """`2 of 4 candidates passed; best 1.8x at 2 threads` or the failures by status;
        `best`: the candidate reported as best when another rule chose it (evolution's)."""
        passed = sum(v.passed for v in self.verdicts.values())
        head = f"{passed} of {made} candidate{'s' if made != 1 else ''} passed"
        best = best if best in self.verdicts else self.best()
        if best is not None:
            return f"{head}; best {_speed(self.verdicts[best])}"
        counts = Counter(v.status.value for v in self.verdicts.values() if not v.passed)
        if not counts:
            return head
        parts = [f"{n} {status}" for status, n in counts.most_common()]
        not_run = sorted({v.reason for v in self.verdicts.values() if v.status == "not_run"})
        detail = f"; {', '.join(not_run)}" if not_run else ""
        return f"{head} ({', '.join(parts)}{detail})"


def _speed(verdict: Verdict) -> str:
    timing = verdict.timing
    if timing is None or not timing.speedup:
        return "passed (not timed)"
    # The plausible ones only, as `Verdict.speedup` (and so the ranking) counts them.
    kept = {n: s for n, s in timing.speedup.items() if n not in timing.above_cores}
    if not kept:
        return "passed (no plausible speedup: above the cores the runs had)"
    count, speedup = max(kept.items(), key=lambda item: (item[1], -item[0]))
    target_kit = KITS.get(verdict.target)
    unit = target_kit.unit if target_kit is not None else None
    if unit is None:
        return f"{speedup:.2f}x"
    return f"{speedup:.2f}x at {count} {unit}{'s' if count != 1 else ''}"
