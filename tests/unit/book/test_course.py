"""rmbook.book.course: exercises are whole, the student edition carries no solution, a stub's error is told apart from
any other, the course parameters are checked; and the course as a whole meets its size."""
from __future__ import annotations

import copy
import json

import pytest

from rmbook import book
from rmbook.book import course as edition
from rmbook.course import catalogue


def _cell(kind, source, ex=None, role=None, tags=(), mystnb=None):
    meta = {"tags": list(tags)} if tags else {}
    if mystnb:
        meta["mystnb"] = mystnb
    if ex:
        meta["rmlib"] = {"exercise": {"id": ex, "role": role}}
    cell = {"cell_type": kind, "metadata": meta, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


EX = "heterogeneity.tau_b"
SOLUTION = ('import numpy as np\n\n\ndef kendall_tau_b(x, y):\n    """τ-b."""\n    ### BEGIN SOLUTION\n'
            "    from scipy import stats\n    return float(stats.kendalltau(x, y).statistic)\n    ### END SOLUTION\n")
# what the student edition makes of SOLUTION: the imports, signature and docstring, and the raise
STUB = ('import numpy as np\n\n\ndef kendall_tau_b(x, y):\n    """τ-b."""\n'
        "    raise NotImplementedError('Exercise 1: write kendall_tau_b')\n")


def notebook(**changes) -> dict:
    label, hint = catalogue()[EX].label(), catalogue()[EX].hint_block()
    cells = [_cell("markdown", "# A chapter"),
             _cell("code", "import pandas as pd", tags=["hide-input"]),
             _cell("markdown", changes.get("task", f"### Exercise 1: τ-b\n\n{label}\n\nWrite it.\n\n{hint}"), EX,
                   "task"),
             _cell("code", changes.get("solution", SOLUTION), EX, "solution",
                   changes.get("solution_tags", ["hide-input"]),
                   changes.get("solution_prompts", edition.SOLUTION_PROMPTS)),
             _cell("code", f'from rmbook import course\ncourse.check("{EX}", kendall_tau_b)', EX, "check",
                   ["remove-input"]),
             _cell("code", "kendall_tau_b([1, 2], [2, 1])", EX, "use", ["hide-input"])]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_a_whole_exercise_is_accepted_and_its_editions_differ_only_by_the_solution():
    nb = notebook()
    assert edition.check_exercises(nb, "planted") == [EX]
    student, teacher = edition.student_edition(nb), edition.instructor_edition(nb)
    roles = [(c.get("metadata", {}).get("rmlib", {}).get("exercise") or {}).get("role") for c in student["cells"]]
    assert "solution" not in roles and roles.count("stub") == 1
    assert len(teacher["cells"]) == len(nb["cells"]) == len(student["cells"])
    stub = next(c for c in student["cells"] if "raise NotImplementedError" in "".join(c["source"]))
    assert "".join(stub["source"]) == STUB  # the solution's own imports, signature and docstring, then the raise
    assert "hide-input" not in stub["metadata"]["tags"] and "mystnb" not in stub["metadata"]  # shown in full
    assert edition.solution_leaks(student, teacher) == []
    assert student["metadata"]["rmlib"]["edition"] == "student"
    assert "### BEGIN SOLUTION" in "".join(teacher["cells"][3]["source"])  # the instructor keeps the markers


def test_the_stub_names_the_exercise_of_its_heading_and_cannot_drift_from_the_solution():
    """#41 item 5 (nbgrader's markers): the stub is made from the solution, so a changed signature or docstring, or
    an import the solution needs, reaches the student (a hand-written stub once lacked its solution's imports)."""
    task = f"### Exercise 3: τ-b\n\n{catalogue()[EX].label()}\n\nWrite it.\n\n{catalogue()[EX].hint_block()}"
    changed = SOLUTION.replace("(x, y)", "(x, y, variant='b')").replace("import numpy as np", "import pandas as pd")
    student = edition.student_edition(notebook(task=task, solution=changed))
    stub = "".join(next(c for c in student["cells"] if "raise" in "".join(c["source"]))["source"])
    assert "def kendall_tau_b(x, y, variant='b'):" in stub and "import pandas as pd" in stub
    assert "NotImplementedError('Exercise 3: write kendall_tau_b')" in stub and "stats.kendalltau" not in stub


def test_the_book_shows_a_solution_without_its_markers():
    from rmbook.book.solutions import without_markers

    page = without_markers(notebook())
    shown = "".join(page["cells"][3]["source"])
    assert "### BEGIN SOLUTION" not in shown and "### END SOLUTION" not in shown
    assert "    return float(stats.kendalltau(x, y).statistic)\n" in shown and '"""τ-b."""' in shown


def test_a_solution_left_in_the_student_edition_is_found():
    nb = notebook()
    student = edition.student_edition(nb)
    student["cells"].append(_cell("code", "    return float(stats.kendalltau(x, y).statistic)\n"))
    assert edition.solution_leaks(student, edition.instructor_edition(nb)) == [EX]


@pytest.mark.parametrize("changes, message", [
    ({"task": "### Exercise 1: τ-b\n\nno labels"}, r"needs the line '\*Difficulty <1-5>/5"),
    ({"task": f"Exercise 1\n\n{catalogue()[EX].label()}\n\nWrite it.\n\n{catalogue()[EX].hint_block()}"},
     "a heading '### Exercise <n>: <title>'"),
    ({"task": f"### Exercise 1\n\n{catalogue()[EX].label()}\n\nWrite it."}, "folded hint"),  # #43 item 9
    ({"solution": SOLUTION.replace("    ### BEGIN SOLUTION\n", "").replace("    ### END SOLUTION\n", "")},
     "mark the lines a student writes with ### BEGIN SOLUTION"),
    ({"solution": SOLUTION.replace("    ### END SOLUTION\n", "")}, "never closed"),
    ({"solution": "### BEGIN SOLUTION\nimport numpy as np\n### END SOLUTION\n" + SOLUTION}, "inside the function"),
    ({"solution": SOLUTION.replace("def kendall_tau_b", "def tau")}, r'course.check\("heterogeneity.tau_b", tau\)'),
    ({"solution_tags": []}, "hide-input"),
    ({"solution_prompts": {}}, "Show the solution"),  # the fold would say "Show code cell source"
])
def test_a_broken_exercise_is_refused_with_what_to_fix(changes, message):
    with pytest.raises(book.BookError, match=message):
        edition.check_exercises(notebook(**changes), "planted")


def test_an_unknown_exercise_or_role_is_refused():
    nb = notebook()
    bad = copy.deepcopy(nb)
    for c in bad["cells"]:
        if "rmlib" in c["metadata"]:
            c["metadata"]["rmlib"]["exercise"]["id"] = "heterogeneity.no_such"
    with pytest.raises(book.BookError, match="heterogeneity.no_such has no check in its chapter's course.py"):
        edition.check_exercises(bad, "planted")
    nb["cells"][3]["metadata"]["rmlib"]["exercise"]["role"] = "answer"
    with pytest.raises(book.BookError, match="role"):
        edition.exercise_cells(nb)


def _error(ename, frames):
    return {"output_type": "error", "ename": ename, "evalue": "x", "traceback": frames}


def test_only_the_stubs_own_not_implemented_error_counts_as_reaching_it():
    nb = edition.student_edition(notebook())
    check = next(c for c in nb["cells"] if (c["metadata"].get("rmlib") or {}).get("exercise", {}).get("role")
                 == "check")
    check["outputs"] = [_error("NotImplementedError", ["Cell In[4], line 2, in \x1b[36mkendall_tau_b\x1b[39m"])]
    assert edition.stub_errors(nb) == ([EX], [])
    check["outputs"] = [_error("NotImplementedError", ["Cell In[4], line 2, in some_other_function"])]
    assert edition.stub_errors(nb)[0] == [] and len(edition.stub_errors(nb)[1]) == 1
    nb["cells"][1]["outputs"] = [_error("NameError", ["Cell In[2]"])]
    assert any("NameError" in e for e in edition.stub_errors(nb)[1])


def test_course_parameters_are_checked_like_any_other(tmp_path, monkeypatch):
    import importlib

    monkeypatch.setattr(importlib.import_module("rmbook.book.chapters"), "CHAPTERS", tmp_path)
    (tmp_path / "heterogeneity").mkdir()
    course_yaml = tmp_path / "heterogeneity" / "params.course.yaml"
    course_yaml.write_text("parameters: {N_ITEMZ: 3}\n")
    with pytest.raises(book.BookError, match="N_ITEMZ"):
        edition.course_parameters(book.chapter("heterogeneity"))
    course_yaml.write_text("parameters: {N_ITEMS: [3\n")
    with pytest.raises(book.BookError, match="not valid YAML"):
        edition.course_parameters(book.chapter("heterogeneity"))
    course_yaml.write_text("N_ITEMS: 3\n")
    with pytest.raises(book.BookError, match="only `parameters:`"):
        edition.course_parameters(book.chapter("heterogeneity"))
    course_yaml.write_text("parameters: {N_ITEMS: 3}\n")
    params = edition.course_parameters(book.chapter("heterogeneity"))
    assert params["N_ITEMS"] == 3 and params["RESULTS_DIR"] == "results"


def test_every_chapters_exercises_are_whole_and_every_check_is_used():
    """The notebooks and the catalogue agree: each exercise in a chapter is whole (cells, labels, tags), and each
    check in rmbook.course is some chapter's exercise."""
    used = []
    for name in edition.course_chapters():
        used += edition.check_exercises(book.chapter(name).cells(), name)
    assert sorted(used) == sorted(catalogue()), "checks no chapter uses, or exercises in two chapters"
    assert all(ex.startswith(f"{catalogue()[ex].chapter}.") for ex in used)


def test_the_reference_solution_is_the_notebooks_own_cell():
    fn = edition.reference_solution(EX)
    from scipy import stats

    x, y = [1, 2, 2, 3, 5], [1, 3, 2, 2, 4]
    assert fn.__name__ == "kendall_tau_b" and abs(fn(x, y) - stats.kendalltau(x, y).statistic) < 1e-9
    with pytest.raises(book.BookError, match="no solution cell"):
        edition.reference_solution("heterogeneity.no_such")


def test_build_course_writes_both_editions_with_the_course_parameters(tmp_path):
    written = edition.build_course(tmp_path, ["heterogeneity"], log=lambda *_: None)
    student = json.loads(written["student"][0].read_text())
    teacher = json.loads(written["instructor"][0].read_text())
    assert edition.solution_leaks(student, teacher) == []
    injected = [c for c in student["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "N_ITEMS = 1000" in "".join(injected[0]["source"])
    assert 'RESULTS_DIR = "results"' in "".join(injected[0]["source"])


def test_a_students_edited_notebook_is_kept_unless_forced(tmp_path):
    logged = []
    written = edition.build_course(tmp_path, ["heterogeneity"], log=logged.append)
    mine = written["student"][0]
    work = mine.read_text().replace("Exercise 1: write kendall_tau_b", "my attempt")
    mine.write_text(work)
    edition.build_course(tmp_path, ["heterogeneity"], log=logged.append)  # e.g. `make lab COURSE=student` again
    assert mine.read_text() == work and any("kept" in line for line in logged)
    teacher = written["instructor"][0].read_text()
    edition.build_course(tmp_path, ["heterogeneity"], log=logged.append)
    assert written["instructor"][0].read_text() == teacher  # unchanged copies are rewritten (identically)
    edition.build_course(tmp_path, ["heterogeneity"], log=logged.append, force=True)
    assert "my attempt" not in mine.read_text()


def test_the_build_log_counts_exercises_in_the_right_number(tmp_path):
    """`make course` logged "mere_exposure: 1 exercises" (#43 item 9)."""
    logged = []
    edition.build_course(tmp_path, ["mere_exposure", "heterogeneity"], log=logged.append)
    assert "[course] mere_exposure: 1 exercise (mere_exposure.slope)" in logged
    assert any(line.startswith("[course] heterogeneity: 2 exercises (") for line in logged)


def test_a_student_notebook_keeps_the_prediction_the_book_page_hides(tmp_path):
    written = edition.build_course(tmp_path, ["heterogeneity"], log=lambda *_: None)
    student = json.loads(written["student"][0].read_text())
    predictions = [c for c in student["cells"] if "prediction" in c["metadata"].get("tags", [])]
    assert len(predictions) == 2 and "Predict first" in "".join(predictions[0]["source"])


def test_a_course_notebook_runs_with_the_checkouts_data_folder(tmp_path, monkeypatch):
    """Before: tools/course_page.py --measure ran its notebooks with rmlib's user folders (~/.local/share/rmlib since
    rmlib installs anywhere), so reward_lens's lab could not find the Big Two nouns."""
    import nbformat

    from rmbook import paths
    from rmlib import config

    monkeypatch.delenv(config.DATA_ENV, raising=False)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"import os; print(os.environ['{config.DATA_ENV}'])")])
    target = tmp_path / "lab.ipynb"
    nbformat.write(nb, str(target))
    executed = edition.execute_edition(target, allow_errors=False, timeout=120)
    assert "".join(executed["cells"][0]["outputs"][0]["text"]).strip() == str(paths.ROOT / "data" / "external")
