"""The reference stage: the spec's reference built and run before any candidate file exists.

It runs on the visible tests (or their outputs come from the cache), on this verification's
hidden inputs (drawn here, from a fresh seed the verdict records) and once on the timing input;
what its object does that candidates are otherwise refused for is read off it. The reference
then stays in its own directory for the paired timing runs: sealed, and out of reach of every
candidate command (each runs as an identity without access to it; see the backends).
"""

from __future__ import annotations

import secrets

from sandbox.checkers import integrity
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.models import Command, CommandResult
from sandbox.spec import Language, Target, TestCase
from sandbox.toolchains import Sources
from sandbox.verdict import HiddenReport, Status, StepRecord, Verdict
from sandbox.verify import hidden as hidden_inputs
from sandbox.verify import outcomes
from sandbox.verify.job import Job, gather_limited

GENERATOR_DIR = "gen"


async def prepare(job: Job) -> Verdict | None:
    """Fill `job.expected` (and the hidden tests, the allowances); a verdict if the reference
    fails."""
    cache = job.cache
    need_binary = not job.opts.probe  # hidden inputs and the paired timing run it
    if cache is None:
        if failed := await _build(job):
            return failed
        if failed := _check_runs(job, await _runs(job, job.spec.tests)):
            return failed
    else:
        async with cache.lock(job.key):
            entry = cache.entry(job.key)
            cache.stats.count("outputs", hit=entry.outputs is not None)
            if (entry.outputs is None or need_binary) and (failed := await _build(job)):
                return failed
            if entry.outputs is None:
                if failed := _check_runs(job, await _runs(job, job.spec.tests)):
                    return failed
                entry.outputs, entry.allowed = dict(job.expected), job.allowed
            else:
                job.expected = dict(entry.outputs)
                if entry.allowed is not None and not job.ref_built:
                    job.allowed = entry.allowed
                _reused(job, "reference outputs")
    if job.opts.probe or (job.candidate.target is Target.CUDA and not job.gpu):
        # Nothing will run the candidate beyond its build here (a probe's visible tests aside).
        _lint_outputs(job)
        return None
    if failed := await _hidden(job):
        return failed
    _lint_outputs(job)
    if job.opts.timing or job.candidate.target is Target.OPENMP:
        return await _timing_output(job)
    return None


async def _build(job: Job) -> Verdict | None:
    await job.rec.workspace.write_files(
        {f"{job.ref.dir}/{k}": v for k, v in job.spec.files.items()}
        | {f"{job.ref.dir}/{job.ref.main}": job.spec.reference}
    )
    compiled = await job.rec.run("build reference", job.ref_tc.compile(job.ref, job.paths))
    if failed := _build_failure(job, compiled):
        return failed
    linked = await job.rec.run("link reference", job.ref_tc.link(job.ref, job.paths))
    if failed := _build_failure(job, linked):
        return failed
    job.allowed = await allowances(job, job.ref, job.spec.reference)
    job.ref_built = True
    return None


async def allowances(job: Job, program: Sources, source: str) -> integrity.Allowances:
    """What the reference's object does that a candidate's may then do too."""
    symbols = await job.rec.run(
        "reference's symbols", Command(argv=["nm", "prog.o"], cwd=program.dir, timeout_s=30)
    )
    image = await job.rec.workspace.read_file(program.object, limit=64 << 20)
    return integrity.reference_allowances(source, symbols.stdout if symbols.ok else "", image)


def _build_failure(job: Job, ref: CommandResult) -> Verdict | None:
    if missing := outcomes.missing_tool(ref):
        return job.finish(Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox")
    if not ref.ok:
        diags = parse_diagnostics(ref.stderr + "\n" + ref.stdout)
        return job.finish(
            Status.REFERENCE_FAILED,
            f"the reference does not build: {summarize(diags) or outcomes.tail(ref.stderr)}",
        )
    return None


async def _runs(job: Job, cases: list[TestCase]) -> list[tuple[TestCase, CommandResult]]:
    results = await gather_limited(
        job.opts.parallel_runs,
        *(job.run_reference(f"run reference [{c.name}]", c) for c in cases),
    )
    return list(zip(cases, results, strict=True))


def _fails(job: Job, result: CommandResult) -> bool:
    return not result.ok or job.ref_tc.timed_out(result.exit_code, result.stderr)


def _lost(runs: list[tuple[TestCase, CommandResult]]) -> CommandResult | None:
    """The run the sandbox's watchdog took the workspace with (the one that did not end,
    before those that ended with it), or None."""
    killed = [result for _, result in runs if result.sandbox_killed]
    return min(killed, key=lambda r: r.ended_with is not None) if killed else None


def _check_runs(job: Job, runs: list[tuple[TestCase, CommandResult]]) -> Verdict | None:
    # A run that ended with another's (the watchdog took the workspace at that one's
    # time-out) is reported after the run that did not end.
    for case, result in sorted(runs, key=lambda run: run[1].ended_with is not None):
        if _fails(job, result):
            return job.finish(
                Status.REFERENCE_FAILED,
                f"the reference fails on test {case.name!r}: {outcomes.describe_exit(result)}",
            )
        job.expected[case.name] = result.stdout
    return None


async def _hidden(job: Job) -> Verdict | None:
    """Draw this verification's hidden inputs and run the reference on them."""
    seed = job.opts.seed if job.opts.seed is not None else secrets.randbits(48)
    drawn = hidden_inputs.draw(job.spec, seed, job.opts.hidden)
    tests = list(drawn.tests)
    if drawn.program_seeds and (failed := await _generate_stdin(job, tests, drawn.program_seeds)):
        return failed
    kept: list[TestCase] = []
    runs = await _runs(job, tests)
    lost = _lost(runs)
    if lost is not None:
        # The reference did not end on one, and the watchdog took the workspace with it:
        # nothing more runs there, so no input can be dropped and the verification go on (the
        # candidate's build would end with that time-out).
        return job.finish(
            Status.REFERENCE_FAILED,
            f"the reference fails on a hidden input (seed {seed}): {outcomes.describe_exit(lost)}",
        )
    for case, result in runs:
        if _fails(job, result):
            if not drawn.derived:
                return job.finish(
                    Status.REFERENCE_FAILED,
                    f"the reference fails on a hidden input its spec declares "
                    f"(seed {seed}): {outcomes.describe_exit(result)}",
                )
            continue  # a derived input the reference does not take: not a valid input
        job.expected[case.name] = result.stdout
        kept.append(case)
    job.hidden = kept
    if drawn.timing is not None:
        job.timing_case = drawn.timing
    report = HiddenReport(
        seed=seed,
        tests=len(kept),
        timing=drawn.timing is not None,
        derived=drawn.derived,
        dropped=len(tests) - len(kept),
        note=drawn.note,
    )
    if tests and not kept:
        report.note = "no hidden input: the reference failed on every derived one"
    job.verdict.hidden = report
    if not kept:
        job.verdict.lint.append(report.note or "no hidden input")
    return None


async def _generate_stdin(job: Job, tests: list[TestCase], seeds: list[int]) -> Verdict | None:
    """Run the spec's generator program once per hidden test; its stdout is the test's stdin."""
    assert job.spec.hidden is not None and job.spec.hidden.program is not None
    lang = job.spec.language if job.spec.language is not Language.CUDA else Language.CPP
    gen = Sources(GENERATOR_DIR, f"gen{lang.suffix}", lang)
    await job.rec.workspace.write_files({f"{gen.dir}/{gen.main}": job.spec.hidden.program})
    for name, command in (
        ("build input generator", job.gen_tc.compile(gen, job.paths)),
        ("link input generator", job.gen_tc.link(gen, job.paths)),
    ):
        built = await job.rec.run(name, command)
        if not built.ok:
            return job.finish(
                Status.REFERENCE_FAILED,
                f"the spec's input generator does not build: {outcomes.tail(built.stderr)}",
            )
    for k, (case, seed) in enumerate(zip(tests, seeds, strict=True)):
        run = job.gen_tc.run(gen, TestCase(name="gen", args=[str(seed)]), 1, 60, job.paths)
        made = await job.rec.run(f"generate hidden input #{k + 1}", run, hidden=True)
        if not made.ok:
            return job.finish(
                Status.REFERENCE_FAILED,
                f"the spec's input generator fails: {outcomes.describe_exit(made)}",
            )
        tests[k] = case.model_copy(update={"stdin": made.stdout})
    return None


async def _timing_output(job: Job) -> Verdict | None:
    """The reference's output on the timing input (each timed run is checked against it, and
    the race checker runs it too)."""
    case = job.timing_case
    if case.name in job.expected:
        return None
    run = await job.run_reference(f"run reference [{case.name}]", case)
    if _fails(job, run):
        return job.finish(
            Status.REFERENCE_FAILED,
            f"the reference fails on the timing input: {outcomes.describe_exit(run)}",
        )
    job.expected[case.name] = run.stdout
    return None


def _lint_outputs(job: Job) -> None:
    """Flag a spec whose tests all expect the same output: printing it passes them."""
    visible = {job.expected[t.name].strip() for t in job.spec.tests}
    if len(job.spec.tests) < 2 or len(visible) != 1:
        return
    every = {job.expected[t.name].strip() for t in job.tests}
    caught = "; the hidden inputs' answers differ" if len(every) > 1 else ", hidden inputs too"
    job.verdict.lint.append(
        "every test of the spec expects the same output: a program that prints it passes "
        f"them{caught} (make the tests' answers differ)"
    )


def _reused(job: Job, what: str) -> None:
    job.rec.steps.append(
        StepRecord(
            name=f"reuse {what}",
            command="(from an earlier verification of this spec)",
            exit_code=0,
            duration_s=0.0,
        )
    )
