"""rmbook.book.solutions: nbgrader's solution markers, cleared to a stub for the student and removed for the page."""
from __future__ import annotations

import pytest

from rmbook.book import solutions

SOURCE = '''import numpy as np


def f(x):
    """Twice x."""
    ### BEGIN SOLUTION
    y = np.asarray(x)
    return 2 * y
    ### END SOLUTION


def g(x):
    for v in x:
        ### BEGIN SOLUTION
        print(v)
        ### END SOLUTION
'''


def test_each_region_becomes_a_raise_at_its_own_indentation():
    stub = solutions.stub(SOURCE, "write f")
    assert "    raise NotImplementedError('write f')\n\n\ndef g" in stub
    assert "        raise NotImplementedError('write f')\n" in stub  # the nested region keeps its depth
    assert "2 * y" not in stub and "print(v)" not in stub and '"""Twice x."""' in stub
    compile(stub, "stub", "exec")


def test_the_page_shows_the_solution_without_the_marker_lines():
    shown = solutions.unmarked(SOURCE)
    assert "SOLUTION" not in shown
    assert shown.splitlines() == [ln for ln in SOURCE.splitlines() if "SOLUTION" not in ln]
    nb = {"cells": [{"cell_type": "code", "source": SOURCE.splitlines(True)},
                    {"cell_type": "markdown", "source": "### BEGIN SOLUTION is a phrase here"}]}
    page = solutions.without_markers(nb)
    assert "SOLUTION" not in page["cells"][0]["source"] and page["cells"][1] == nb["cells"][1]
    assert "".join(nb["cells"][0]["source"]) == SOURCE  # the chapter's own cells are left as they were


@pytest.mark.parametrize("source, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "line 2: ### BEGIN SOLUTION is never closed"),
    ("def f():\n    return 1\n    ### END SOLUTION\n", "line 3: ### END SOLUTION without"),
    ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n", "line 3: ### BEGIN SOLUTION inside the region"),
])
def test_unbalanced_markers_are_refused_with_the_line(source, message):
    with pytest.raises(ValueError, match=message):
        solutions.regions(source)


def test_a_region_at_the_top_level_is_refused():
    with pytest.raises(ValueError, match="line 1: a solution region must be inside the function"):
        solutions.stub("### BEGIN SOLUTION\nimport numpy\n### END SOLUTION\ndef f():\n    pass\n", "x")
