"""The pure checks behind the integrity rejections: source, symbols, engine transport, spec."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from corpus.suites import load_suite
from sandbox.backends.engine import plain_tcp_problem
from sandbox.checkers.integrity import (
    Allowances,
    calls_used,
    driver_findings,
    reference_allowances,
    source_findings,
    string_findings,
    symbol_findings,
)
from sandbox.spec import Spec, Target, TestCase

CLEAN = """
#include <stdio.h>
#include <omp.h>
int main(int argc, char **argv) {  /* getenv in a comment is fine */
    double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 10; i++) s += i;
    printf("getenv %f\\n", s);
    fprintf(stderr, "PARFORGE_TIME_S=%f\\n", s);
    return 0;
}
"""


def test_a_plain_openmp_program_is_clean():
    assert source_findings(CLEAN) == []


@pytest.mark.parametrize(
    "snippet, words",
    [
        ('const char *__tsan_default_options(void) { return ""; }', "__tsan_default_options"),
        ("void f(void) { __sanitizer_set_report_path(0); }", "__sanitizer_set_report_path"),
        ("#ifdef __SANITIZE_THREAD__\n#endif", "__SANITIZE_THREAD__"),
        ("#if __has_feature(thread_sanitizer)\n#endif", "__has_feature"),
        ("#ifdef __clang__\n#endif", "__clang__"),
        ('__attribute__((no_sanitize("thread"))) void f(void) {}', "no_sanitize"),
        ('char *p = getenv("OMP_TOOL");', "getenv"),
        ("extern char **environ;", "environ"),
        ("int main(int c, char **v, char **envp) { return 0; }", "third argument"),
        ('FILE *f = fopen("/proc/self/environ", "r");', "/proc/"),
        ('const char *k = "TSAN_OPTIONS";', "TSAN_OPTIONS"),
        ('void f(void) { AnnotateBenignRaceSized("", 0, 0, 0, ""); }', "AnnotateBenignRaceSized"),
        ('void f(void) { __asm__("nop"); }', "assembly"),
        ("int ompt_start_tool(void) { return 0; }", "ompt_start_tool"),
        ('int r = execv("../ref/prog", 0);', "execv"),
    ],
)
def test_each_way_to_fool_the_checkers_is_named(snippet, words):
    found = source_findings(snippet)
    assert any(words in f for f in found), found


SIZED_BY_ENV = """
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    const char *n = getenv("N");  /* the reference reads its size from the environment */
    long s = 0, len = n ? atol(n) : 1000;
    for (long i = 0; i < len; i++) s += i;
    printf("%ld\\n", s);
    return 0;
}
"""


def test_a_call_the_reference_makes_is_allowed_to_its_candidates():
    allowed = calls_used(SIZED_BY_ENV)
    assert allowed == {"getenv"}
    candidate = SIZED_BY_ENV.replace(
        "for (long", "#pragma omp parallel for reduction(+:s)\n    for (long"
    )
    assert source_findings(candidate) != []  # without the reference's licence: rejected
    assert source_findings(candidate, allowed) == []
    assert symbol_findings("0 T main\n  U getenv@GLIBC_2.2.5\n", allowed) == []
    # Only the calls: probing the checker's own variables stays forbidden whatever the reference.
    probing = candidate.replace('getenv("N")', 'getenv("TSAN_OPTIONS")')
    assert any("TSAN_OPTIONS" in f for f in source_findings(probing, allowed))
    assert any(
        "system" in f
        for f in source_findings(candidate + 'int f(void){return system("x");}', allowed)
    )
    assert calls_used('/* getenv() */ int main(void) { puts("getenv"); }') == frozenset()


def test_symbols_defined_hooks_and_imports_count_instrumentation_calls_do_not():
    nm = """0000000000000000 T __tsan_default_options
                 U __tsan_read4
                 U __tsan_func_entry
0000000000000010 T main
                 U getenv@GLIBC_2.2.5
                 U printf@GLIBC_2.2.5
"""
    found = symbol_findings(nm)
    assert found == [
        "imports `getenv` (reaches outside the program or its runtime)",
        "defines the sanitizer hook `__tsan_default_options`",
    ]
    assert symbol_findings("0 T main\n  U printf\n  U __tsan_write8\n") == []


@pytest.mark.parametrize(
    ("nm", "words"),
    [
        ("0 T clock_gettime\n0 T main\n", "defines the timer `clock_gettime`"),
        ("0 W omp_get_wtime\n", "defines the timer `omp_get_wtime`"),
        ("0 T _ZNSt6chrono3_V212steady_clock3nowEv\n", "defines the timer"),
        ("  w __kmpc_fork_call\n", "references `__kmpc_fork_call` weakly"),
        ("  U fopen\n", "imports `fopen`"),
        ("  U pthread_create\n", "imports `pthread_create`"),
        ("  U sched_setaffinity\n", "imports `sched_setaffinity`"),
        ("  U setenv\n", "imports `setenv`"),
        ("  U mq_open\n", "imports `mq_open`"),
        ("  U malloc_usable_size\n", "imports `malloc_usable_size`"),
        (
            "  U _ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode\n",
            "basic_ifstream",
        ),
    ],
)
def test_the_object_may_not_define_timers_probe_runtimes_or_reach_out(nm, words):
    found = symbol_findings(nm)
    assert any(words in f for f in found), found


def test_what_the_reference_object_does_is_allowed_and_a_driver_keeps_its_timer():
    reference = reference_allowances(
        "int main() { return 0; }",
        "  U fopen\n  w __pthread_key_create\n  U _ZNSt6chrono3_V212steady_clock3nowEv\n",
    )
    candidate = "  U fopen\n  w __pthread_key_create\n  U printf\n"
    assert symbol_findings(candidate, reference) == []
    found = symbol_findings(candidate, reference, driver=True)
    assert found == ["no longer calls the driver's timer `_ZNSt6chrono3_V212steady_clock3nowEv`"]
    # A GPU program's host code may start threads; an OpenMP program's may not.
    assert symbol_findings("  U pthread_create\n", host_threads=True) == []


def test_strings_are_read_from_the_objects_data_after_the_compiler_joined_them():
    image = elf_with_rodata(b"\0/proc/self/maps\0hello world\0")
    assert string_findings(image) == [
        "carries the text `/proc/` (probing the checker or the sandbox)"
    ]
    allowed = Allowances(strings=frozenset(["/proc/"]))
    assert string_findings(image, allowed) == []
    assert string_findings(b"not an object") == []


def elf_with_rodata(data: bytes) -> bytes:
    """A minimal ELF64 object with one `.rodata` section holding `data`."""
    import struct

    names = b"\0.rodata\0.shstrtab\0"
    header_size, section_size = 64, 64
    rodata_at = header_size
    names_at = rodata_at + len(data)
    shoff = names_at + len(names)
    header = struct.pack(
        "<16sHHIQQQIHHHHHH",
        b"\x7fELF\x02\x01\x01" + bytes(9), 1, 62, 1, 0, 0, shoff, 0, header_size, 0, 0,
        section_size, 3, 2,
    )  # fmt: skip
    null = bytes(section_size)
    rodata = struct.pack("<IIQQQQIIQQ", 1, 1, 2, 0, rodata_at, len(data), 0, 0, 1, 0)
    strtab = struct.pack("<IIQQQQIIQQ", 9, 3, 0, 0, names_at, len(names), 0, 0, 1, 0)
    return header + data + names + null + rodata + strtab


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("#define clock_gettime(c, t) fake(c, t)\n", "redefines `clock_gettime`"),
        ("#  define steady_clock my_clock\n", "redefines `steady_clock`"),
        ("#def\\\nine now later\n", "redefines `now`"),
        ("#pragma redefine_extname clock_gettime fake\n", "redefine_extname"),
    ],
)
def test_a_macro_or_a_rename_may_not_take_a_clocks_name(source, words):
    assert any(words in f for f in source_findings(source)), source_findings(source)


def test_an_include_line_is_not_a_call():
    assert source_findings("#include <fcntl.h>\n#include <unistd.h>\nint main() {}\n") == []
    assert source_findings("int main() { return fcntl(0, 1); }\n")


DESTRUCTOR = 'struct F { ~F() { std::fprintf(stderr, "PARFORGE_TIME_S=0.000001\\n"); } } f;'


@pytest.mark.parametrize(
    ("snippet", "words"),
    [
        (DESTRUCTOR, ["`stderr`", "`PARFORGE_TIME_S`"]),
        ("static void forge() { pf::kernel_seconds() = 1e-6; }", ["`kernel_seconds`"]),
        ("#define CAT(a, b) a##b\nstatic void forge() { CAT(kernel_, seconds)() = 0; }", ["`##`"]),
        ('static int fd = dup(2); static FILE *e = fdopen(fd, "w");', []),
        ('static FILE *tty = fopen("/dev/tty", "w");', ["`/dev/`"]),
        (
            "__attribute__((constructor)) static void early(int argc, char **argv) {}",
            ["`constructor`"],
        ),
        ('[[gnu::section(".init_array")]] static void (*early)(void) = 0;', ["`section`"]),
    ],
)
def test_a_solution_inside_a_driver_may_not_touch_the_timing_report(snippet, words):
    found = driver_findings(snippet)
    assert all(any(w in f for f in found) for w in words), found
    if not words:  # duplicating stderr is a forbidden call in any candidate
        assert any("`dup`" in f for f in source_findings(snippet))
        assert any("`fdopen`" in f for f in source_findings(snippet))


def test_openmp_sections_are_not_attributes():
    sections = "void f() {\n#pragma omp parallel sections\n{\n  #pragma omp section\n  {}\n}\n}\n"
    assert driver_findings(sections) == []


def test_no_known_good_pareval_solution_touches_the_timing_report():
    suite = load_suite("pareval")
    for task in suite.tasks:
        for target in (Target.OPENMP, Target.MPI, Target.CUDA):
            for good in task.target(target).solutions:
                assert driver_findings(good.source) == [], (task.name, target, good.name)
                assert source_findings(good.source) == [], (task.name, target, good.name)
    for translation in suite.translations:  # what the agents start from
        assert driver_findings(translation.source) == [], translation.name


def test_plain_tcp_engines_are_refused_unless_allowed():
    assert plain_tcp_problem("tcp://gpu:2375", tls=False, allow_plain_tcp=False)
    assert plain_tcp_problem("http://gpu:2375", tls=False, allow_plain_tcp=False)
    assert plain_tcp_problem("tcp://gpu:2376", tls=True, allow_plain_tcp=False) is None
    assert plain_tcp_problem("tcp://gpu:2375", tls=False, allow_plain_tcp=True) is None
    assert plain_tcp_problem("ssh://me@gpu", tls=False, allow_plain_tcp=False) is None
    assert plain_tcp_problem("unix:///var/run/docker.sock", False, False) is None
    assert plain_tcp_problem(None, False, False) is None


def test_duplicate_test_names_are_rejected_at_the_spec():
    with pytest.raises(ValidationError, match="repeated: a"):
        Spec(reference="int main(){}", tests=[TestCase(name="a"), TestCase(name="a", args=["1"])])
