"""tools/insert_exercise.py: an exercise's cells go in whole (the checks of rmbook.book.course accept them), once, and
a shared template's exercise is kept to the chapters named."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from rmbook.book.course import check_exercises, exercise_cells
from rmbook.course import task_text

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from tools.insert_exercise import insert_exercise  # noqa: E402

SOLUTION = ("def kendall_tau_b(x, y):\n    ### BEGIN SOLUTION\n    from scipy import stats\n    return stats.kendalltau(x, y)"
            ".statistic\n    ### END SOLUTION\n")


def test_an_exercise_goes_in_whole_and_once(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# A"]},
                    {"cell_type": "code", "id": "b", "metadata": {}, "source": ["x = 1"], "outputs": [],
                     "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    for _ in range(2):  # the second run replaces the first
        insert_exercise(str(path), after="a", exercise_id="heterogeneity.tau_b", title="τ-b", labels=(2, 4, 15),
                        task="Write it.", hint="Count each pair once, in the upper triangle.", solution=SOLUTION, use=["kendall_tau_b([1, 2], [1, 2])"], use_after="b", number=1,
                        chapters=["heterogeneity"])
    out = json.loads(path.read_text())
    assert check_exercises(out, "planted") == ["heterogeneity.tau_b"]
    task = task_text("".join(out["cells"][1]["source"]), "planted")  # what the catalogue reads back
    assert task == {"title": "τ-b", "difficulty": 2, "importance": 4, "minutes": 15,
                    "hint": "Count each pair once, in the upper triangle."}
    roles = [r for _, _, r in exercise_cells(out)]
    assert roles == ["task", "solution", "check", "use"]
    assert [c["id"] for c in out["cells"]][0] == "a" and out["cells"][-1]["metadata"]["rmlib"]["exercise"]["role"] == "use"
    assert out["cells"][-2]["id"] == "b"  # the use cell follows the cell it was placed after
    assert all(c["metadata"]["rmlib"]["chapters"] == ["heterogeneity"] for c in out["cells"] if "rmlib" in c["metadata"])
