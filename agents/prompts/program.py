"""The prompt-mode messages: a system message and one user message per task (pure).

The user message carries everything the verifier will hold the answer to, so that a capable
model can pass on its first try: the sequential program, how it is run (arguments and stdin of
the tests), how the answer is built and checked for the target model, and the output contract
(same arguments, same stdin, same stdout, byte for byte or within the stated tolerance).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from agents.llm import Message
from agents.targets import kit
from sandbox.spec import Language, Target, TestCase, Tolerance

SYSTEM = (
    "You are an expert in high-performance computing. You translate sequential C and C++ "
    "programs into parallel OpenMP, MPI and CUDA programs that compile cleanly, produce exactly "
    "the same output as the original, are free of data races and deadlocks, and run faster on "
    "more cores. You think about which loops carry the work and which variables each thread "
    "or process shares before you write code. You answer with one complete program in one "
    "fenced code block, followed by at most three sentences."
)

_LANGUAGE_NAME = {Language.C: "C", Language.CPP: "C++", Language.CUDA: "CUDA C++"}
_FENCE = {Language.C: "c", Language.CPP: "cpp", Language.CUDA: "cuda"}
_SHOWN_STDIN = 200


def _join(counts: Sequence[int]) -> str:
    items = [str(n) for n in counts]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _comparison(tolerance: Tolerance | None) -> str:
    if tolerance is None:
        return "Outputs are compared exactly, so keep every printf format as it is."
    return (
        "Numbers in the output are compared with a relative tolerance of "
        f"{tolerance.rtol:g}"
        + (f" (absolute {tolerance.atol:g})" if tolerance.atol else "")
        + "; everything else must match exactly."
    )


def _test_lines(tests: Sequence[TestCase]) -> list[str]:
    lines = []
    for case in tests:
        if case.args:
            line = f"- `./program {shlex.join(case.args)}`"
        else:
            line = "- `./program` (no arguments)"
        if case.stdin:
            shown = case.stdin[:_SHOWN_STDIN]
            more = " ..." if len(case.stdin) > _SHOWN_STDIN else ""
            line += f" with standard input {shown!r}{more}"
        lines.append(line)
    return lines


def build_messages(
    source: str,
    language: Language,
    target: Target,
    tests: Sequence[TestCase],
    *,
    threads: Sequence[int] = (1, 2, 4),
    ranks: Sequence[int] = (1, 2, 4),
    tolerance: Tolerance | None = None,
    shown_tests: int = 4,
    function_only: bool = False,
    signature: str | None = None,
) -> list[Message]:
    """The system and user messages that ask for one parallel version of `source`;
    `function_only`: `source` is the function(s) a test driver includes, not a program, so the
    answer is those functions (or `signature`, what the driver calls instead, such as a CUDA
    kernel) with no `main`."""
    target_kit = kit(target)
    lang = _LANGUAGE_NAME[language]
    written = target_kit.language(language)
    out_lang = _LANGUAGE_NAME[written]
    name = target_kit.name
    counts = target_kit.counts(threads, ranks)
    at = f" at {_join(counts)} {target_kit.unit}s" if counts and target_kit.unit else ""
    if function_only:
        answer = f"`{signature}`" if signature else "the same function(s)"
        rules = [
            "The code is not a program but the function(s) a test driver includes; the driver "
            f"calls {answer}. Write {answer} (with the types and helper functions it uses) "
            f"in {out_lang}, using only the standard library and {name}, and no `main`: the "
            "driver has its own.",
            "Keep the results identical to the sequential function's for every input.",
            *target_kit.driver_rules(),
            _comparison(tolerance),
        ]
        what, whole = "code", "the definitions"
    else:
        rules = [
            "Keep the program's behaviour identical: it reads the same command-line arguments "
            "and standard input and writes exactly the same output to standard output, in the "
            "same order and the same format. Write nothing else to standard output.",
            f"Write one complete {out_lang} file with its `main` function, using only the "
            f"standard library and {name}.",
            *target_kit.rules,
            _comparison(tolerance),
        ]
        what, whole = "program", "the complete program"
    parts = [
        f"Translate this sequential {lang} {what} into a parallel {name} {what}.",
        f"```{_FENCE[language]}\n{source.rstrip()}\n```",
        "Requirements:\n" + "\n".join(f"- {r}" for r in rules),
        f"Your {what} will be compiled with {target_kit.build_line(language)}. It is then "
        f"checked automatically: it must build, give the original's results on every test"
        f"{at}, pass {target_kit.checks}, and is then timed "
        "against the original.",
    ]
    shown = list(tests)[:shown_tests] if not function_only else []
    if shown:
        parts.append("The tests run it as:\n" + "\n".join(_test_lines(shown)))
    parts.append(f"Answer with {whole} in a single ```{_FENCE[written]} code block.")
    return [
        Message(role="system", content=SYSTEM),
        Message(role="user", content="\n\n".join(parts)),
    ]
