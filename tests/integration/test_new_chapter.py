"""#41 item 2: a chapter is one unit. A new chapter, added by ARCHITECTURE.md's recipe to a copy of the project,
creates its folder (``src/rmbook/chapters/<name>/``), its notebook and its test, adds one line to ``_toc.yml``, and
edits nothing else; the book then finds everything by the chapter's name: its template and parameters, its results
type, its sentences, its exercise, its parameter table, its claim (#64: ``claims.py`` and ``claims.md.j2``, which its
"In brief" judges and the claims page gathers and reads), its place in the course (``course.yaml``: the session that
teaches it and its notebooks' times, which the course page shows), and the architecture test accepts it."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NAME = "new_chapter"

FILES = {
    "__init__.py": '''"""A planted chapter: the mean of a few numbers, said in a sentence.

The chapter's files: ``analysis.py`` (the mean), ``types.py`` (its results type), ``results.py`` (its builder),
``course.py`` (one exercise's check), ``claims.py`` (the claim its results test).
"""
__all__ = []
''',
    "analysis.py": '''"""The new chapter's analysis: the mean of the numbers it is given."""
from __future__ import annotations

__all__ = ["MODES", "mean"]

MODES = ["published"]


def mean(values: list[float]) -> float:
    """The arithmetic mean of ``values``."""
    return sum(values) / len(values)
''',
    "types.py": '''"""The new chapter's results type."""
from __future__ import annotations

from rmbook.results import ChapterResults

__all__ = ["NewChapterResults"]


class NewChapterResults(ChapterResults):
    """The mean the chapter computed."""

    CHAPTERS = ("new_chapter",)
    mean: float
''',
    "results.py": '''"""The new chapter's results, built from what it computed."""
from __future__ import annotations

from rmbook.chapters.new_chapter.types import NewChapterResults

__all__ = ["NewChapterResults", "chapter_results"]


def chapter_results(mean: float) -> NewChapterResults:
    """The typed results the notebook's last cell writes."""
    return NewChapterResults(mean=mean)
''',
    "course.py": '''"""The new chapter's exercise: the mean of a list."""
from __future__ import annotations

from rmbook.course.exercises import close, exercise, expect

__all__ = ["check_mean"]


@exercise("new_chapter.mean")
def check_mean(fn) -> int:
    """The student's mean against two planted lists."""
    expect(close(fn([1.0, 2.0, 3.0]), 2.0), "the mean of 1, 2, 3 is 2")
    expect(close(fn([4.0]), 4.0), "the mean of one number is that number")
    return 2
''',
    "claims.py": '''"""The claim the new chapter's results test: the mean is above 2."""
from __future__ import annotations

from rmbook.analysis.claims import Claim, Evidence, Part, evaluate_part, sentences, threshold_outcome

__all__ = ["CLAIMS"]

said = sentences("new_chapter")


def above_two(e: Evidence) -> list[Part]:
    def fn():
        m = e.of("new_chapter").mean
        return threshold_outcome(m, 2.0, below=False), said("mean", mean=m)
    return [evaluate_part("the mean is above 2", e, fn)]


CLAIMS = [Claim("new_mean", "A planted paper", "The numbers' mean is above 2.", "the planted paper's abstract",
                ("new_chapter",), "the planted numbers", "numbers", "the mean against 2", above_two, place=1)]
''',
    "claims.md.j2": '{% macro mean(mean) %}the mean is {{ mean | num }}{% endmacro %}\n',
    "course.yaml": "session: 8\ntimes: {exercises: 1, student_s: 3.0, instructor_s: 2.0, machine: a CPU, date: '2026-12-07',"
                   " load_before: 0.5, peak_kernel_memory_gib: 1.0}\n",
    "prose.md.j2": '{% macro found(s) %}The mean of the numbers is {{ s.mean | num }}.{% endmacro %}\n',
    "params.yaml": "VALUES: [1.0, 2.0, 3.0, 4.0]\n",
    "params.test.yaml": "parameters:\n  VALUES: [2.0, 4.0]\n",
}

CHAPTER_TEST = '''"""The new chapter through the chapter fixture: its standard run writes the mean."""


def test_the_mean(chapter):
    assert chapter.results("new_chapter").mean == 3.0
'''

CELLS = [
    ("markdown", {}, "# A new chapter\n\nThe mean of a few numbers."),
    ("code", {"tags": ["parameters"]},
     "# Parameters (papermill replaces this cell).\nVALUES = [1.0, 2.0]  # the numbers to average\n"
     "RESULTS_DIR = None  # where the chapter writes its results (set by the book and the tests)"),
    ("code", {"tags": ["remove-cell"]},
     "from rmbook.book import check_parameters\nfrom rmbook.chapters.new_chapter.analysis import MODES\n"
     "check_parameters()"),
    ("code", {}, "from IPython.display import Markdown, display\n\n"
                 "from rmbook.chapters.new_chapter import analysis, results\nfrom rmbook.report import prose\n"
                 "from rmbook.results import write_results"),
    # the exercise, in the cells tools/insert_exercise.py writes: its title, labels and hint are the task cell's
    ("markdown", {"rmlib": {"exercise": {"id": "new_chapter.mean", "role": "task"}}},
     "### Exercise 1: The mean\n\n*Difficulty 1/5 · importance 1/5 · about 5 minutes*\n\nWrite `mean_of(values)`."
     "\n\n```{admonition} Hint\n:class: dropdown\nAdd the numbers up and divide by how many there are.\n```"),
    ("code", {"tags": ["hide-input"], "mystnb": {"code_prompt_show": "Show the solution",
                                                  "code_prompt_hide": "Hide the solution"},
              "rmlib": {"exercise": {"id": "new_chapter.mean", "role": "solution"}}},
     "def mean_of(values):\n    \"\"\"The mean.\"\"\"\n    ### BEGIN SOLUTION\n    return sum(values) / len(values)\n"
     "    ### END SOLUTION"),
    ("code", {"tags": ["remove-input"], "rmlib": {"exercise": {"id": "new_chapter.mean", "role": "check"}}},
     'from rmbook import course\n\ncourse.check("new_chapter.mean", mean_of)'),
    ("code", {}, "found = results.chapter_results(analysis.mean(VALUES))\n"
                 "display(Markdown(prose.render('new_chapter', 'found', s=found)))"),
    ("code", {}, "write_results(found, RESULTS_DIR)"),
    ("code", {"tags": ["in-brief", "remove-cell"]}, "from rmbook.report.brief import claims_brief\n\n"
                                                    "display(Markdown(claims_brief('new_chapter', RESULTS_DIR)))"),
]


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _notebook() -> str:
    nb = json.loads((REPO / "notebooks" / "about.ipynb").read_text(encoding="utf-8"))
    cells = [{"cell_type": kind, "metadata": meta, "source": text, **(
        {"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, meta, text in CELLS]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": nb["metadata"]["kernelspec"]},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the project's code, notebooks and table of contents, with the new chapter added by the recipe."""
    root = tmp_path_factory.mktemp("project")
    for folder in ("src", "notebooks", "tools", "tests"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (root / "book").mkdir()
    for name in ("_toc.yml", "pyproject.toml", "ARCHITECTURE.md", "book/course.md"):
        shutil.copy2(REPO / name, root / name)
    (root / "data").mkdir()
    for p in (REPO / "data").glob("*.y*ml"):
        shutil.copy2(p, root / "data" / p.name)
    before = _tree(root)
    folder = root / "src" / "rmbook" / "chapters" / NAME
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (root / "notebooks" / f"{NAME}.ipynb").write_text(_notebook(), encoding="utf-8")
    (root / "tests" / "chapters" / f"test_{NAME}.py").write_text(CHAPTER_TEST, encoding="utf-8")
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    anchor = "      - file: book/_executed/blinding\n"
    assert anchor in toc
    (root / "_toc.yml").write_text(toc.replace(anchor, anchor + f"      - file: book/_executed/{NAME}\n"),
                                   encoding="utf-8")
    _run(root, [sys.executable, "tools/params_table.py"])  # the chapter's README, in its own folder
    changed = {k for k, v in _tree(root).items() if before.get(k) != v}
    return root, changed


def _run(root: Path, args: list[str], **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=600, check=True, **kw)


def test_adding_a_chapter_edits_only_the_table_of_contents(project):
    root, changed = project
    mine = {f"notebooks/{NAME}.ipynb", f"tests/chapters/test_{NAME}.py",
            *(f"src/rmbook/chapters/{NAME}/{f}" for f in [*FILES, "README.md"])}
    assert changed - mine == {"_toc.yml"}
    assert mine <= changed


def test_the_book_finds_the_new_chapter_by_its_name_and_runs_it(project, tmp_path):
    root, _ = project
    code = f"""
import json, sys
from pathlib import Path
from rmbook import book
from rmbook.analysis.results import result_type
from rmbook.course import catalogue
from rmbook.analysis import claims
from rmbook.book import syllabus
assert book.ROOT == Path({str(root)!r}), book.ROOT
assert "{NAME}" in book.chapters()
ch = book.chapter("{NAME}")
assert ch.params_file is not None and ch.test_parameters == {{"VALUES": [2.0, 4.0]}}
run = book.run_chapter("{NAME}", overrides=ch.test_parameters, output_dir=Path({str(tmp_path)!r}), log=lambda *a: None)
typed = result_type("{NAME}")
from rmbook.book.course import check_exercises
assert check_exercises(ch.cells(), "{NAME}") == ["{NAME}.mean"]
page = claims.load_evidence(Path({str(tmp_path)!r}) / "results", say=lambda s: s.kind)
table, _ = claims.claims_table(page, claims.chapter_claims("{NAME}"))
print(json.dumps({{"type": typed.__name__, "exercise": catalogue()["{NAME}.mean"].title,
                  "claims": [c.key for c in claims.all_claims()], "reads": book.reads_results("claims"),
                  "verdict": table.set_index("key").loc["new_mean", "verdict"],
                  "session": syllabus.exercises_table(syllabus.session_chapters(8)), "times": syllabus.times_table(),
                  "page": Path(run.path).read_text(), "results": sorted(p.name for p in Path({str(tmp_path)!r}).rglob("*.json"))}}))
"""
    out = json.loads(_run(root, [sys.executable, "-c", code]).stdout.strip().splitlines()[-1])
    assert out["type"] == "NewChapterResults" and out["exercise"] == "The mean"
    assert "The mean of the numbers is 3.00." in out["page"] and "passes all 2 planted cases" in out["page"]
    assert f"{NAME}.json" in out["results"]
    # its claim: judged on the page's brief, gathered by the claims page (last: its paper is not one of the book's),
    # whose chapters to read follow from the claims
    assert "*The numbers' mean is above 2.* (A planted paper): **replicates**" in out["page"]
    assert out["claims"][-1] == "new_mean" and NAME in out["reads"] and out["verdict"] == "replicates"
    # its place in the course: the session that its folder names lists its exercise, the times table its notebooks
    assert f"| 1. The mean (`{NAME}.mean`) | {NAME} | 1/5 | 1/5 | 5 |" in out["session"]
    assert f"| {NAME} † | 1 | 3 | 2 |" in out["times"]


def test_the_architecture_test_accepts_the_new_chapter(project):
    root, _ = project
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/unit/test_architecture.py", "tests/unit/tools/test_params_table.py",
                             "tests/unit/book/test_syllabus.py"],
                            cwd=root, env={**os.environ, "PYTHONPATH": str(root / "src")},
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
