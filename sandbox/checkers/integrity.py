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

Three views, because each alone can be dodged:

- `source_findings`: the candidate's own files (comments and strings aside, but string
  contents checked for the names of the checkers' variables and of /proc files; `#include`
  lines are not calls);
- `symbol_findings`: `nm` of the candidate's own object, compiled before anything is linked
  (the sanitizer runtime linked in later defines its own): the hooks and timers the program
  *defines*, the functions it *imports* (what macros and token pasting hide from the source
  check) and the symbols it references *weakly* (to test whether a runtime is there);
- `string_findings`: the text in the object's data sections, after the compiler joined split
  literals ("/pr" "oc/").

Beyond the checkers, the same views refuse what a correct parallel program never does and a
forger needs: opening files or its own /proc entries, starting threads or processes of its own
(threads must come from the runtime, so that a count of them means parallel regions ran),
moving itself to other CPUs, changing its environment, IPC objects and sockets (a channel to
another run), allocator introspection (telling the sanitizer's heap from the ordinary one), and
defining or redefining a timer. What the reference program itself does is allowed
(`Allowances`, read from the reference's own object).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sandbox.checkers.clike import blank_comments_and_strings, identifiers
from sandbox.checkers.elf import data_strings

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
_FORBIDDEN_IMPORTS = frozenset(
    [
        # files: the program's input is its arguments and stdin, its answer its stdout
        "open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2",
        "creat", "creat64", "fopen", "fopen64", "mkfifo", "mknod", "name_to_handle_at",
        # processes and threads of its own
        "fork", "vfork", "_Fork", "clone", "clone3", "__clone", "daemon", "setsid", "setpgid",
        "kill", "killpg", "pthread_create", "thrd_create", "ptrace",
        # CPUs and scheduling
        "sched_setaffinity", "pthread_setaffinity_np", "pthread_attr_setaffinity_np",
        "sched_setscheduler", "setpriority", "nice",
        # its environment
        "setenv", "putenv", "unsetenv", "clearenv",
        # IPC and sockets: channels to other runs
        "shmget", "shmat", "shm_open", "mq_open", "msgget", "semget", "sem_open", "socket",
        "socketpair", "connect", "bind",
        # the allocator and the process's own layout
        "malloc_usable_size", "mallinfo", "mallinfo2", "malloc_info", "malloc_stats", "sbrk",
        "pthread_getattr_np",
    ]
)  # fmt: skip
"""Imports of the candidate's object refused on top of `_FORBIDDEN_CALLS` (object only: as
identifiers in source, `open` or `bind` are often just names)."""
_FORBIDDEN_MANGLED = (
    "basic_ifstream",
    "basic_ofstream",
    "basic_fstream",
    "basic_filebuf",
    "St10filesystem",
    "St6thread15_M_start_thread",
    "St6thread20hardware_concurrency",
)
"""Pieces of C++ symbol names for the same: file streams, std::filesystem, std::thread."""
_HOST_THREADS = frozenset(["pthread_create", "thrd_create"])
_HOST_THREAD_MANGLED = ("St6thread15_M_start_thread",)
"""What a GPU program's host code may start (its runtime has threads of its own anyway)."""
TIMERS = frozenset(
    [
        "clock_gettime", "__clock_gettime", "__clock_gettime64", "gettimeofday", "time",
        "clock", "times", "ftime", "timespec_get", "getrusage", "clock_getres",
        "omp_get_wtime", "omp_get_wtick", "MPI_Wtime", "PMPI_Wtime", "MPI_Wtick", "PMPI_Wtick",
        "cudaEventElapsedTime", "cudaEventRecord", "cudaEventSynchronize",
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "rdtsc", "__rdtsc",
        "_ZNSt6chrono3_V212steady_clock3nowEv", "_ZNSt6chrono3_V212system_clock3nowEv",
        "_ZNSt6chrono12steady_clock3nowEv", "_ZNSt6chrono12system_clock3nowEv",
    ]
)  # fmt: skip
"""Functions a program or its driver reads time with: a candidate that defines one (or a
macro of the same name) makes the harness's clock its own."""
_TIMER_WORDS = frozenset(
    [
        "clock_gettime", "gettimeofday", "time", "clock", "times", "timespec_get",
        "omp_get_wtime", "MPI_Wtime", "PMPI_Wtime", "steady_clock", "system_clock",
        "high_resolution_clock", "chrono", "now", "duration", "duration_cast", "time_point",
        "cudaEventElapsedTime", "cudaEventRecord", "cudaEventSynchronize",
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "timed", "report_time",
        "kernel_seconds", "sync_hook", "pf",
    ]
)  # fmt: skip
"""Names a candidate's macro may not take: the clocks, and the harness's timing code."""
_DEFINE = re.compile(r"^[ \t]*#[ \t]*(?:define|undef)[ \t]+(\w+)", re.M)
_REDEFINE_EXTNAME = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+redefine_extname\b", re.M)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*(?:include|include_next|import)\b[^\n]*", re.M)
_WATCHED_IN_OBJECT = re.compile(
    r"TSAN_OPTIONS|ARCHER|OMP_TOOL|ASAN_OPTIONS|UBSAN_OPTIONS|MSAN_OPTIONS|LD_PRELOAD|/proc/"
    r"|/sys/|/dev/shm|/dev/mqueue|/work/|\.scratch|\.collect|libtsan|libarcher|ThreadSanitizer"
)
"""Text in an object's data that only a program probing its checker or sandbox needs."""
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


@dataclass(frozen=True)
class Allowances:
    """What the reference program does itself, and so its candidates may do too."""

    calls: frozenset[str] = frozenset()
    """Otherwise forbidden calls and imports (a size read with `getenv`, a data file opened)."""
    strings: frozenset[str] = frozenset()
    """Watched text found in the reference's object (a harness's own messages)."""
    weak: frozenset[str] = frozenset()
    """Weak references the reference's object makes (from system headers)."""
    timers: frozenset[str] = frozenset()
    """Timers the reference's object imports: a driver's candidate must still call them."""


def reference_allowances(source: str, nm_output: str = "", image: bytes = b"") -> Allowances:
    """What the reference does: its source's forbidden calls, its object's forbidden imports,
    watched strings and weak references, and the timers it imports."""
    imports, weak = _imports(nm_output)
    forbidden = _FORBIDDEN_CALLS | _FORBIDDEN_IMPORTS
    calls = calls_used(source) | {n for n in imports if n in forbidden or _mangled_forbidden(n)}
    strings = {
        m.group(0) for text in data_strings(image) for m in _WATCHED_IN_OBJECT.finditer(text)
    }
    return Allowances(
        calls=frozenset(calls),
        strings=frozenset(strings),
        weak=frozenset(weak),
        timers=frozenset(n for n in imports if n in TIMERS),
    )


def calls_used(source: str) -> frozenset[str]:
    """The forbidden calls a source makes: a reference's are allowed to its candidates."""
    return frozenset(identifiers(_code(source))) & _FORBIDDEN_CALLS


def _code(source: str) -> str:
    """The source without comments, string contents and `#include` lines (a header named
    <fcntl.h> is no call of `fcntl`)."""
    return _INCLUDE.sub(" ", blank_comments_and_strings(source))


def source_findings(source: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Why this source interferes with the checkers (empty when it does not); `allowed`: the
    forbidden calls the reference makes itself (`calls_used`)."""
    blanked = _code(source)
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
    spliced = blank_comments_and_strings(source.replace("\\\n", ""))
    for m in _DEFINE.finditer(spliced):
        if m.group(1) in _TIMER_WORDS:
            found[f"redefines `{m.group(1)}` as a macro (the clock the harness reads)"] = None
    if _REDEFINE_EXTNAME.search(spliced):
        found["renames external functions with `#pragma redefine_extname`"] = None
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


def symbol_findings(
    nm_output: str,
    allowed: frozenset[str] | Allowances = frozenset(),
    *,
    host_threads: bool = False,
    driver: bool = False,
) -> list[str]:
    """Why an object (as `nm` lists it) interferes with the checkers or the harness.

    Defined sanitizer hooks and timers count; undefined sanitizer symbols do not (the
    instrumentation itself calls `__tsan_read4` and friends), but imports of forbidden
    functions and weak references do. `host_threads`: a GPU program's host code may start
    threads. `driver`: the object holds the spec's driver, whose timers it must still import.
    """
    allow = allowed if isinstance(allowed, Allowances) else Allowances(calls=allowed)
    found: dict[str, None] = {}
    imports, weak = _imports(nm_output)
    for name in imports:
        if name in allow.calls:
            continue
        if host_threads and (
            name in _HOST_THREADS or any(piece in name for piece in _HOST_THREAD_MANGLED)
        ):
            continue
        if name in _FORBIDDEN_CALLS or name in _FORBIDDEN_IMPORTS or _mangled_forbidden(name):
            found[f"imports `{name}` (reaches outside the program or its runtime)"] = None
    for name in weak:
        if name not in allow.weak and not name.startswith(_TOOLCHAIN_WEAK):
            found[f"references `{name}` weakly (tests whether a runtime defines it)"] = None
    for kind, name in _symbols(nm_output):
        if kind in "Uwv":
            continue
        if name.startswith(SANITIZER_PREFIXES) or name in _HOOK_NAMES:
            found[f"defines the sanitizer hook `{name}`"] = None
        elif name in TIMERS:
            found[f"defines the timer `{name}` (the clock the harness reads)"] = None
    if driver:
        for name in sorted(allow.timers - set(imports)):
            found[f"no longer calls the driver's timer `{name}`"] = None
    return list(found)


def string_findings(image: bytes, allowed: Allowances | None = None) -> list[str]:
    """Why the text in an object's data sections looks like probing the checker or sandbox."""
    allow = allowed.strings if allowed is not None else frozenset()
    found: dict[str, None] = {}
    for text in data_strings(image):
        for m in _WATCHED_IN_OBJECT.finditer(text):
            if m.group(0) not in allow:
                found[f"carries the text `{m.group(0)}` (probing the checker or the sandbox)"] = (
                    None
                )
    return list(found)


_TOOLCHAIN_WEAK = ("__cuda", "__nv", "__fatbin", "_ITM_", "__gmon_start__", "__cxa_")
"""Weak references compilers emit themselves (CUDA's registration, transactional memory,
profiling, C++ runtime hooks)."""


def _symbols(nm_output: str) -> list[tuple[str, str]]:
    found = []
    for line in nm_output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[-2]) == 1:
            found.append((parts[-2], parts[-1].split("@", 1)[0]))
    return found


def _imports(nm_output: str) -> tuple[list[str], list[str]]:
    """(undefined symbols, weak undefined symbols) of an `nm` listing."""
    symbols = _symbols(nm_output)
    return [n for k, n in symbols if k == "U"], [n for k, n in symbols if k in "wv"]


def _mangled_forbidden(name: str) -> bool:
    return name.startswith("_Z") and any(piece in name for piece in _FORBIDDEN_MANGLED)


def _strip_comments(source: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
