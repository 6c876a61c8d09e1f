from sandbox.checkers.diagnostics import parse_diagnostics, summarize

GCC = """\
main.c: In function 'main':
main.c:3:21: warning: unused variable 'unused' [-Wunused-variable]
    3 | int main(void){ int unused; printf("%d\\n", foo(2)); return 0; }
      |                     ^~~~~~
main.c:7:5: error: 'x' undeclared (first use in this function)
main.c:7:5: note: each undeclared identifier is reported only once
/usr/bin/ld: /tmp/ccHNRKgb.o: in function `main':
main.c:(.text+0xa): undefined reference to `foo'
collect2: error: ld returned 1 exit status
"""

NVCC = """\
main.cu(1): error: identifier "undefined_var" is undefined
  __attribute__((global)) void k(int* p){ p[threadIdx.x] = undefined_var; }
                                                           ^

main.cu(2): warning #177-D: variable "y" was declared but never referenced
2 errors detected in the compilation of "main.cu".
ptxas error   : Entry function '_Z1kPi' uses too much shared data (0x10000 bytes, 0xc000 max)
"""


def test_gcc_errors_warnings_and_linker_messages_are_parsed_notes_dropped():
    diags = parse_diagnostics(GCC)
    assert [(d.severity, d.file, d.line, d.column) for d in diags] == [
        ("warning", "main.c", 3, 21),
        ("error", "main.c", 7, 5),
        ("error", "main.c", None, None),
        ("error", None, None, None),
    ]
    assert diags[1].message == "'x' undeclared (first use in this function)"
    assert diags[2].message == "undefined reference to `foo'"
    assert diags[3].message == "collect2: ld returned 1 exit status"


def test_clang_driver_error_is_parsed():
    diags = parse_diagnostics(
        "clang: error: linker command failed with exit code 1 (use -v to see invocation)\n"
    )
    assert diags[0].severity == "error"
    assert diags[0].message.startswith("clang: linker command failed")


def test_nvcc_front_end_and_ptxas_messages_are_parsed():
    diags = parse_diagnostics(NVCC)
    assert [(d.severity, d.file, d.line) for d in diags] == [
        ("error", "main.cu", 1),
        ("warning", "main.cu", 2),
        ("error", None, None),
    ]
    assert diags[0].message == 'identifier "undefined_var" is undefined'
    assert diags[2].message.startswith("ptxas: Entry function")


def test_duplicates_are_dropped_and_the_list_is_capped():
    text = "a.c:1:1: error: boom\n" * 3 + "".join(
        f"a.c:{n}:1: warning: w{n}\n" for n in range(2, 100)
    )
    diags = parse_diagnostics(text, limit=10)
    assert len(diags) == 10
    assert sum(d.message == "boom" for d in diags) == 1


def test_summary_prefers_errors_and_counts_the_rest():
    diags = parse_diagnostics(GCC)
    line = summarize(diags, limit=1)
    assert line.startswith("main.c:7: 'x' undeclared")
    assert line.endswith("(+2 more)")
