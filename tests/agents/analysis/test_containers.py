"""Which names a function's declarations show to be random-access containers."""

from __future__ import annotations

from agents.analysis.containers import random_access_names
from agents.analysis.parse import function_definitions, parse
from sandbox.spec import Language

SOURCE = """#include <vector>
#include <array>
#include <map>
#include <span>
#include <string>
void f(std::vector<int> const& v, std::array<int, 3> a, std::span<const double> s,
       std::map<int, int> &m, std::vector<int> *p, int raw[], auto&& any) {
    std::string text = "x";
    int local[4] = {0};
    std::deque<int> d;
    std::list<int> l;
    std::vector<int> w(3), *q = nullptr;
    { double v = 1.0; }
}
"""


def test_only_visible_random_access_declarations_count() -> None:
    definition = next(function_definitions(parse(SOURCE, Language.CPP).root_node))
    # v is shadowed by a double in an inner block, so it is not known to be a vector there;
    # a pointer to a vector and an array parameter (a pointer) cannot be iterated.
    assert random_access_names(definition) == {"a", "s", "text", "local", "d", "w"}
