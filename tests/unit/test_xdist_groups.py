"""The costly module fixtures are set up once in `make test` (#61).

`make test` runs pytest-xdist with two workers and ``--dist loadgroup``. A module-scoped fixture is set up on every
worker that runs one of its tests, so a module's tests spread over both workers pay its setup twice: in a clean
`make test` at eab6c19 the two-process cold load's (28 + 30 s, the same work twice). Its tests keep to one xdist
group, which one worker runs.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

# (module, fixture): module fixtures whose setup on a second worker repeats the first's work. Not the tiny book's
# (tests/chapters/test_book.py): its setup on a second worker shares the chapters' runs with the first (grouped, a
# clean make test took 940 s; not grouped, 930 s, in the same hour: AMX, 2026-12-07).
COSTLY = [("integration/test_model_cache.py", "cold_cache")]


def _group(mark: ast.expr) -> str | None:
    """The group of a ``pytest.mark.xdist_group("name")`` expression, else None."""
    if isinstance(mark, ast.Call) and isinstance(mark.func, ast.Attribute) and mark.func.attr == "xdist_group":
        return ast.literal_eval(mark.args[0]) if mark.args else ast.literal_eval(mark.keywords[0].value)
    return None


def groups_of_tests_using(source: str, fixture: str) -> dict[str, str | None]:
    """Each test function of a module that requests ``fixture``, with its xdist group (its own mark, else the
    module's ``pytestmark``), or None."""
    tree = ast.parse(source)
    module_group = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            marks = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            module_group = next((g for g in map(_group, marks) if g), None)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") \
                and fixture in [a.arg for a in node.args.args]:
            own = next((g for g in map(_group, node.decorator_list) if g), None)
            out[node.name] = own or module_group
    return out


@pytest.mark.parametrize("module, fixture", COSTLY, ids=[m for m, _ in COSTLY])
def test_the_tests_of_a_costly_module_fixture_share_one_xdist_group(module, fixture):
    groups = groups_of_tests_using((TESTS / module).read_text(), fixture)
    assert len(groups) >= 2  # otherwise there is nothing to share
    assert None not in groups.values(), {t: g for t, g in groups.items() if g is None}
    assert len(set(groups.values())) == 1, groups


def test_the_group_reader_sees_a_module_mark_an_own_mark_and_none():
    src = ('import pytest\npytestmark = [pytest.mark.slow, pytest.mark.xdist_group("a")]\n'
           '@pytest.mark.xdist_group(name="b")\ndef test_own(f): pass\n'
           'def test_module(f, g): pass\ndef test_other(g): pass\n')
    assert groups_of_tests_using(src, "f") == {"test_own": "b", "test_module": "a"}
    assert groups_of_tests_using("def test_x(f): pass\n", "f") == {"test_x": None}
