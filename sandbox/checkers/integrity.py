"""Candidates that try to fool the checkers: sanitizer hooks, checker detection, escapes.

A race checker that the program under test can switch off is no checker: a candidate may define
`__tsan_default_options` (reporting off), call TSan's annotation API, mark functions
`no_sanitize`, build differently under clang or a sanitizer (`__has_feature(thread_sanitizer)`,
`__SANITIZE_THREAD__`, `__clang__`: the tests and timing use gcc, the race check clang), read its
environment to notice the checker (`getenv("TSAN_OPTIONS")`, `environ`, `/proc/self/environ`),
or reach outside its own program (run another binary, list directories, raw system calls).
None of that is needed to parallelise a loop, so each is a reason to reject the candidate.
The one exception is a call the reference program makes itself (a size read with `getenv`, say):
the candidate may make it too (`calls_used`). Everything else stays forbidden whatever the
reference does: hooks, detection macros, inline assembly, `main`'s third argument, and the
checkers' variable names and /proc paths in strings, so `getenv("TSAN_OPTIONS")` is still out.

Two views, because each alone can be dodged:

- `source_findings`: the candidate's own files (comments and strings aside, but string
  contents checked for the names of the checkers' variables and of /proc files);
- `symbol_findings`: `nm` of objects built from them: the hooks the program *defines* (a guarded
  `#if __has_feature(...)` definition exists only in the instrumented build) and the functions it
  *imports* (what macros and token pasting hide from the source check).
"""

from __future__ import annotations

import re

from sandbox.checkers.clike import blank_comments_and_strings, identifiers

TOOL = "integrity"
KIND = "checker interference"

SANITIZER_PREFIXES = (
    "__tsan_",
    "__sanitizer_",
    "__asan_",
    "__msan_",
    "__ubsan_",
    "__lsan_",
    "__hwasan_",
    "__dfsan_",
    "__archer_",
)
"""Names of the sanitizer runtimes' interfaces and hooks."""
_HOOK_NAMES = frozenset(["ompt_start_tool"])
"""Defining it replaces the OpenMP tool (Archer) with the candidate's own."""
_ANNOTATIONS = re.compile(r"^(Annotate[A-Z]\w*|WTFAnnotate\w*|ValgrindSlowdown|RunningOnValgrind)$")
"""TSan's dynamic annotations (benign races, ignored reads and writes)."""
_DETECT_MACROS = re.compile(
    r"^(__SANITIZE_\w+__|__has_feature|__has_extension|__has_attribute|__has_builtin"
    r"|__has_include(_next)?|__clang\w*|__llvm\w*|__GNUC\w*|__OPTIMIZE\w*|__NO_INLINE__"
    r"|__INTEL\w*|__apple_build_version__|__VERSION__)$"
)
"""Macros that tell compilers, sanitizers and optimisation levels apart."""
_FORBIDDEN_CALLS = frozenset(
    [
        # the environment, where the checkers' options are
        "getenv",
        "secure_getenv",
        "__secure_getenv",
        "environ",
        "__environ",
        "_environ",
        "getauxval",
        # other programs and the dynamic linker
        "system",
        "popen",
        "execl",
        "execle",
        "execlp",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "fexecve",
        "execveat",
        "posix_spawn",
        "posix_spawnp",
        "dlopen",
        "dlmopen",
        "dlsym",
        "dlvsym",
        "dladdr",
        "dl_iterate_phdr",
        # listing and probing the workspace, raw system calls
        "syscall",
        "opendir",
        "fdopendir",
        "readdir",
        "readdir64",
        "scandir",
        "scandir64",
        "nftw",
        "nftw64",
        "ftw",
        "glob",
        "glob64",
        "readlink",
        "readlinkat",
        "ptrace",
        "prctl",
        # a second handle on stderr, where the harness reports the kernel time
        "freopen",
        "dup",
        "dup2",
        "dup3",
        "fdopen",
        "fcntl",
    ]
)
_ASM = frozenset(["asm", "__asm", "__asm__"])
_NO_SANITIZE = re.compile(
    r"^(no_sanitize\w*|__no_sanitize\w*__|disable_sanitizer_instrumentation)$"
)
_WATCHED_TEXT = re.compile(
    r"TSAN_OPTIONS|ARCHER|OMP_TOOL|ASAN_OPTIONS|UBSAN_OPTIONS|MSAN_OPTIONS|LD_PRELOAD"
    r"|/proc/|/sys/"
)
"""Text in string literals that only a program probing its checker needs."""
_MAIN_WITH_ENVP = re.compile(r"\bmain\s*\(\s*[^(),]+,[^(),]+,[^()]+\)")


def calls_used(source: str) -> frozenset[str]:
    """The forbidden calls a source makes: a reference's are allowed to its candidates."""
    return frozenset(identifiers(blank_comments_and_strings(source))) & _FORBIDDEN_CALLS


def source_findings(source: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Why this source interferes with the checkers (empty when it does not); `allowed`: the
    forbidden calls the reference makes itself (`calls_used`)."""
    blanked = blank_comments_and_strings(source)
    found: dict[str, None] = {}
    for word in dict.fromkeys(identifiers(blanked)):
        if word.startswith(SANITIZER_PREFIXES) or word in _HOOK_NAMES or _ANNOTATIONS.match(word):
            found[f"uses the sanitizer interface `{word}`"] = None
        elif _NO_SANITIZE.match(word):
            found[f"turns instrumentation off with `{word}`"] = None
        elif _DETECT_MACROS.match(word):
            found[f"tests `{word}` (behaviour that depends on the compiler or a sanitizer)"] = None
        elif word in _FORBIDDEN_CALLS and word not in allowed:
            found[f"calls `{word}` (reads its environment or reaches outside the program)"] = None
        elif word in _ASM:
            found["contains inline assembly"] = None
    if _MAIN_WITH_ENVP.search(blanked):
        found["takes the environment as a third argument of main"] = None
    no_comments = _strip_comments(source)
    for m in _WATCHED_TEXT.finditer(no_comments):
        found[f"mentions `{m.group(0)}` (probing the checker or the sandbox)"] = None
    return list(found)


_HARNESS_TIMING = frozenset(
    ["stderr", "kernel_seconds", "report_time", "sync_hook", "timed_kernel"]
)
"""What a solution inside a driver could use to rewrite or replace the harness's kernel time:
the stream it is printed on and the harness's own timing functions. A solution that computes
an answer needs none of them."""
_BEFORE_MAIN = frozenset(["constructor", "destructor", "init_priority", "section"])
"""Attributes that run a function before or after `main` (`constructor` functions get argv:
one could read the seed, compute the answer before the timed call and return it instantly)."""
_HARNESS_TEXT = re.compile(r"PARFORGE_TIME_S|/dev/")


def driver_findings(source: str) -> list[str]:
    """Why a solution compiled into a driver (a ParEval task) may be forging the time the
    driver reports. The driver, not the solution, times the call and prints
    `PARFORGE_TIME_S`; a solution that reaches for stderr, the harness's timer or that marker
    (or pastes tokens to build such names out of sight) is rejected before it runs. Found by
    printing a fake time from a global's destructor: a 17,761x speedup was accepted."""
    blanked = blank_comments_and_strings(source)
    # `#pragma omp section` is OpenMP, not an attribute: attributes are looked for outside
    # pragma lines (whose clauses, being code, are still searched for the harness's names).
    outside_pragmas = set(
        identifiers(re.sub(r"^[ \t]*#[ \t]*pragma\b[^\n]*", " ", blanked, flags=re.M))
    )
    found: dict[str, None] = {}
    for word in dict.fromkeys(identifiers(blanked)):
        if word in _HARNESS_TIMING:
            found[f"uses `{word}` (the harness's own timing report)"] = None
        elif word in _BEFORE_MAIN and word in outside_pragmas:
            found[f"uses `{word}` (code that runs outside the timed call)"] = None
    if "##" in blanked:
        found["pastes tokens with `##` (names built out of this check's sight)"] = None
    for m in _HARNESS_TEXT.finditer(_strip_comments(source)):
        found[f"mentions `{m.group(0)}` (the harness's timing report or a device file)"] = None
    return list(found)


def symbol_findings(nm_output: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Why an object or program (as `nm` lists it) interferes with the checkers.

    Defined sanitizer hooks count; undefined sanitizer symbols do not (the instrumentation
    itself calls `__tsan_read4` and friends), but imports of forbidden functions do.
    """
    found: dict[str, None] = {}
    for line in nm_output.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1].split("@", 1)[0]
        if kind == "U":
            if name in _FORBIDDEN_CALLS and name not in allowed:
                found[
                    f"imports `{name}` (reads its environment or reaches outside the program)"
                ] = None
        elif name.startswith(SANITIZER_PREFIXES) or name in _HOOK_NAMES:
            found[f"defines the sanitizer hook `{name}`"] = None
    return list(found)


def _strip_comments(source: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
