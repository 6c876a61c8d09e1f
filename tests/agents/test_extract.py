"""Taking the program out of a model's reply."""

from __future__ import annotations

from agents.extract import extract_code, fenced_blocks

PROGRAM = '#include <stdio.h>\nint main(void) {\n    printf("hi\\n");\n    return 0;\n}'


def test_one_fenced_block_with_prose_around_it():
    reply = f"Here is the parallel version:\n\n```c\n{PROGRAM}\n```\n\nIt uses a reduction."
    got = extract_code(reply)
    assert got.code == PROGRAM + "\n"
    assert got.how == "fenced block 1 of 1"


def test_a_build_command_after_the_code_is_not_taken():
    reply = f"```cpp\n{PROGRAM}\n```\nBuild it with:\n```bash\ng++ -fopenmp -O2 main.cpp -o main && ./main 100 and more words here\n```"
    got = extract_code(reply)
    assert got.code == PROGRAM + "\n" and got.how == "fenced block 1 of 2"


def test_the_block_with_main_wins_over_a_larger_fragment():
    helper = "static double helper(double x) {\n" + "    x = x * 2.0;\n" * 20 + "    return x;\n}"
    reply = f"```c\n{helper}\n```\nand the program:\n```c\n{PROGRAM}\n```"
    assert extract_code(reply).code == PROGRAM + "\n"


def test_of_two_programs_the_larger_then_the_last_wins():
    serial = PROGRAM
    parallel = PROGRAM.replace("int main(void) {", "int main(void) {\n#pragma omp parallel\n    {}")
    reply = f"Original:\n```c\n{serial}\n```\nParallel:\n```c\n{parallel}\n```"
    assert extract_code(reply).code == parallel + "\n"
    same_size = f"```c\n{serial}\n```\n```c\n{serial.replace('hi', 'ho')}\n```"
    assert "ho" in extract_code(same_size).code


def test_untagged_and_tilde_fences():
    assert extract_code(f"```\n{PROGRAM}\n```").code == PROGRAM + "\n"
    got = extract_code(f"~~~c++\n{PROGRAM}\n~~~\n")
    assert got.code == PROGRAM + "\n" and got.how == "fenced block 1 of 1"


def test_a_fence_cut_off_by_max_tokens_runs_to_the_end():
    reply = f"```c\n{PROGRAM[:40]}"
    got = extract_code(reply)
    assert got.code == PROGRAM[:40] + "\n" and got.how == "unclosed fence"
    [block] = fenced_blocks(reply)
    assert not block.closed


def test_a_reply_without_fences_is_taken_whole():
    got = extract_code(f"\n{PROGRAM}\n\n")
    assert got.code == PROGRAM + "\n" and got.how == "whole reply"


def test_prose_only_is_still_code_for_the_compiler_to_judge():
    got = extract_code("I cannot help with that.")
    assert got.code == "I cannot help with that.\n" and got.how == "whole reply"


def test_blank_replies_and_empty_fences_hold_no_code():
    assert extract_code("").code == "" and extract_code("").how == "empty reply"
    assert extract_code("  \n\t\n").how == "empty reply"
    got = extract_code("```c\n```\nsorry")
    assert got.how == "whole reply"  # the only fence is empty: the text is all there is


def test_only_other_languages_still_gives_the_largest_block():
    reply = "```python\nprint('x')\n```\n```python\nfor i in range(3):\n    print(i)\n```"
    assert extract_code(reply).code.startswith("for i in range(3)")


def test_backticks_inside_code_do_not_close_a_longer_fence():
    reply = f"````c\n{PROGRAM}\n```\n/* still code */\n````"
    assert extract_code(reply).code == PROGRAM + "\n```\n/* still code */\n"
