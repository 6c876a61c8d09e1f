import json

import pytest

from parforge.specfile import SpecFileError, language_of, load_spec
from sandbox.spec import Language


def test_toml_spec_reads_files_relative_to_itself(tmp_path):
    (tmp_path / "ref.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "util.h").write_text("#define N 4\n")
    (tmp_path / "in.txt").write_text("1 2 3\n")
    (tmp_path / "task.toml").write_text(
        'language = "c"\nreference = "ref.c"\nfiles = ["util.h"]\ntolerance = { rtol = 1e-9 }\n'
        'threads = [1, 2]\n[[tests]]\nname = "a"\nargs = ["4"]\nstdin_file = "in.txt"\n'
        '[timing]\nname = "big"\nargs = ["400"]\n'
    )
    spec = load_spec(tmp_path / "task.toml")
    assert spec.name == "task"
    assert spec.language is Language.C
    assert spec.reference.startswith("int main")
    assert spec.files == {"util.h": "#define N 4\n"}
    assert spec.tests[0].stdin == "1 2 3\n"
    assert spec.tolerance is not None and spec.tolerance.rtol == 1e-9
    assert spec.timing_case.args == ["400"]


def test_json_spec_with_inline_sources(tmp_path):
    raw = {
        "name": "inline",
        "reference": '#include <stdio.h>\nint main(void) { puts("1"); }\n',
        "driver": '#include "solution.inc"\nint main(void) { return f(); }\n',
        "tests": [{"name": "a"}],
    }
    (tmp_path / "s.json").write_text(json.dumps(raw))
    spec = load_spec(tmp_path / "s.json")
    assert spec.driver is not None and "solution.inc" in spec.driver


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("reference = 'missing.c'\n[[tests]]\nname='a'\n", "cannot read"),
        ('reference = """\nint main;\n"""\n', "not a valid spec"),  # no tests
        ("this is not toml", "not valid TOML"),
        # a typo is not dropped for the default to apply silently
        (
            'reference = """\nint main;\n"""\nthreds = [1, 2]\n[[tests]]\nname = "a"\n',
            "unknown field 'threds' \\(did you mean 'threads'\\?\\)",
        ),
        (
            'reference = """\nint main;\n"""\n[[tests]]\nname = "a"\nargz = ["1"]\n',
            "unknown field in tests\\[0\\]: 'argz' \\(did you mean 'args'\\?\\)",
        ),
        # pydantic's errors as `field: message`, on one line
        (
            'reference = """\nint main;\n"""\nthreads = "many"\n[[tests]]\nname = "a"\n',
            "not a valid spec: threads: Input should be a valid (list|array)",
        ),
    ],
)
def test_bad_spec_files_raise_one_error(tmp_path, content, message):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(SpecFileError, match=message) as caught:
        load_spec(path)
    assert "\n" not in str(caught.value) and "https://" not in str(caught.value)


def test_language_from_suffix(tmp_path):
    assert language_of(tmp_path / "a.cu") is Language.CUDA
    assert language_of(tmp_path / "a.cc") is Language.CPP
    assert language_of(tmp_path / "a.txt") is None
