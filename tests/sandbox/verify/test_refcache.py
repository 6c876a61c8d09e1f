"""verify() with a shared reference cache and timing gate, on a scripted sandbox: what is reused
(the reference's outputs on the visible tests), what never is (its timing, its hidden inputs),
and that verdicts do not change."""

from __future__ import annotations

import asyncio

from sandbox.checkers import tsan
from sandbox.config import VerifyOptions
from sandbox.models import Command, CommandResult
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.refcache import ReferenceCache
from tests.fakes.sandbox import ScriptedSandbox, ScriptedWorkspace

SOURCE = "#pragma omp parallel for\nfor (int i = 0; i < 4; i++) {}\nint main() {}\n"


def spec(**overrides: object) -> Spec:
    fields = {
        "reference": "int main() {}",
        "tests": [TestCase(name="a", args=["1"]), TestCase(name="b", args=["2"])],
        "timing_repeats": 3,
    }
    return Spec.model_validate(fields | overrides)


def handler(reference_ok: bool = True):
    def answer(command: Command, ws: ScriptedWorkspace) -> CommandResult:
        if command.argv[0] in ("gcc", "g++", "clang", "clang++"):
            return CommandResult(exit_code=0 if reference_ok or command.cwd != "ref" else 1)
        if command.argv[0] == "nm":
            return CommandResult(exit_code=0)
        if command.collect:  # the race checker's tool logs: TSan was active, no race
            return CommandResult(exit_code=0, stdout="42\n", files={"tsan.1": tsan.ACTIVE})
        seconds = 1.0 if command.cwd == "ref" else 0.5
        return CommandResult(exit_code=0, stdout="42\n", duration_s=seconds)

    return answer


def visible_runs(ws: ScriptedWorkspace) -> list[Command]:
    """The reference's runs on the spec's own tests (arguments 1 and 2; hidden ones are off)."""
    return [c for c in ws.commands if c.cwd == "ref" and c.argv[1:] in (["1"], ["2"])]


NO_HIDDEN = VerifyOptions(hidden=0)


async def test_a_second_verification_reuses_the_outputs_but_times_the_reference_again() -> None:
    cache = ReferenceCache()
    box = ScriptedSandbox(handler(), per_job=True)
    candidate = Candidate(target=Target.OPENMP, source=SOURCE)
    first = await verify(box, spec(), candidate, reference_cache=cache, options=NO_HIDDEN)
    second = await verify(box, spec(), candidate, reference_cache=cache, options=NO_HIDDEN)
    plain = await verify(ScriptedSandbox(handler(), per_job=True), spec(), candidate)
    assert first.status is second.status is plain.status is Status.PASSED
    assert first.timing == second.timing == plain.timing
    assert len(visible_runs(box.workspaces[0])) == 2 + 4  # two tests, then 3 + 1 timed in turns
    assert len(visible_runs(box.workspaces[1])) == 4  # timed again, tests not run again
    assert [s.name for s in second.steps if s.name.startswith("reuse")] == [
        "reuse reference outputs"
    ]
    assert cache.stats.hits == {"outputs": 1} and len(cache) == 1


async def test_a_different_spec_or_target_is_a_different_entry() -> None:
    base = spec()
    assert ReferenceCache.key(base, Target.OPENMP) == ReferenceCache.key(spec(), Target.OPENMP)
    assert ReferenceCache.key(base, Target.OPENMP) != ReferenceCache.key(base, Target.MPI)
    changed = spec(tests=[TestCase(name="a", args=["3"])])
    assert ReferenceCache.key(base, Target.OPENMP) != ReferenceCache.key(changed, Target.OPENMP)
    # What only concerns candidates does not change the reference.
    assert ReferenceCache.key(base, Target.OPENMP) == ReferenceCache.key(
        spec(threads=[1, 8]), Target.OPENMP
    )


async def test_concurrent_verifications_run_the_reference_tests_once() -> None:
    cache = ReferenceCache()
    box = ScriptedSandbox(handler(), per_job=True)
    candidate = Candidate(target=Target.OPENMP, source=SOURCE)
    verdicts = await asyncio.gather(
        *(
            verify(box, spec(), candidate, reference_cache=cache, timing=False, options=NO_HIDDEN)
            for _ in range(3)
        )
    )
    assert all(v.passed for v in verdicts)
    assert sum(len(visible_runs(ws)) for ws in box.workspaces) == 2  # two tests, once
    assert cache.stats.misses == {"outputs": 1} and cache.stats.hits == {"outputs": 2}


async def test_a_failing_reference_is_not_cached() -> None:
    cache = ReferenceCache()
    box = ScriptedSandbox(handler(reference_ok=False), per_job=True)
    candidate = Candidate(target=Target.OPENMP, source=SOURCE)
    for _ in range(2):
        verdict = await verify(box, spec(), candidate, reference_cache=cache, timing=False)
        assert verdict.status is Status.REFERENCE_FAILED
    assert cache.entry(cache.key(spec(), Target.OPENMP)).outputs is None


async def test_timing_runs_hold_the_gate_alone_and_the_rest_share_it() -> None:
    gate = TimingGate()
    seen: list[tuple[bool, tuple[int, bool]]] = []

    def answer(command: Command, ws: ScriptedWorkspace) -> CommandResult:
        if command.argv != ["pwd"]:
            seen.append(("#timing" in command.argv, gate.holders))
        return handler()(command, ws)

    timed_spec = spec(timing=TestCase(name="t", args=["#timing"]))
    candidate = Candidate(target=Target.OPENMP, source=SOURCE)
    verdicts = await asyncio.gather(
        *(
            verify(ScriptedSandbox(answer, per_job=True), timed_spec, candidate, timing_gate=gate)
            for _ in range(2)
        )
    )
    assert all(v.passed for v in verdicts)
    alone = [is_timed for is_timed, (_, exclusive) in seen if exclusive]
    assert len(alone) == 2 * (4 + 3 * 3)  # per job: 3 + 1 reference runs, 3 at each of 3 counts
    assert all(alone)  # only runs on the timing input hold the gate alone...
    # ...and everything else shares it (the timing input's untimed runs included: the
    # reference's answer on it, and the race checker's run at timing size).
    assert all(not exclusive and shared >= 1 for _, (shared, exclusive) in seen if not exclusive)
    assert gate.holders == (0, False)


async def test_the_gate_makes_timing_wait_for_commands_in_flight_and_hold_back_new_ones() -> None:
    gate = TimingGate()
    log: list[str] = []
    release = asyncio.Event()

    async def ordinary(name: str, wait: bool) -> None:
        async with gate.shared():
            log.append(f"{name} start")
            if wait:
                await release.wait()
            log.append(f"{name} end")

    async def timing() -> None:
        async with gate.exclusive():
            log.append("timing")

    first = asyncio.create_task(ordinary("build", wait=True))
    await asyncio.sleep(0)
    timer = asyncio.create_task(timing())
    await asyncio.sleep(0)
    late = asyncio.create_task(ordinary("test", wait=False))
    await asyncio.sleep(0.01)
    assert log == ["build start"]  # timing waits for the build; the test waits for timing
    release.set()
    await asyncio.gather(first, timer, late)
    assert log == ["build start", "build end", "timing", "test start", "test end"]
