"""Insert (or replace) one exercise's cells in a chapter notebook: task, solution, check and optional use cells,
marked and tagged as rmbook.book.course expects. The task cell is where the exercise's title, labels line and folded
hint are written (the catalogue reads them from there, rmbook.course.task_text); its check is the chapter's
``course.py``, registered under the same id. The solution marks the lines a student writes with nbgrader's ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (rmbook.book.solutions); the student edition makes the stub from them.

    from tools.insert_exercise import insert_exercise
    insert_exercise("notebooks/heterogeneity.ipynb", after="<cell id>", exercise_id="heterogeneity.tau_b",
                    title="Kendall's τ-b on tied scores", labels=(2, 4, 15), task="Write ...",
                    hint="`np.sign(...)` gives the order of every pair at once ...",
                    solution="def f(x):\\n    \"\"\"...\"\"\"\\n    ### BEGIN SOLUTION\\n    return x\\n    ### END SOLUTION",
                    use=["print(f(...))"])

Run again with the same id to replace that exercise's cells. Cell ids are kept for the other cells.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path

from rmbook.book.course import SOLUTION_PROMPTS, TAGS, check_exercises
from rmbook.course import Exercise

__all__ = ["insert_exercise"]


def _cell(kind: str, source: str, ex: str, role: str, tags: list[str], chapters: list[str] | None = None,
          prompts: dict | None = None) -> dict:
    mark = {"exercise": {"id": ex, "role": role}, **({"chapters": list(chapters)} if chapters else {})}
    cell = {"cell_type": kind, "id": uuid.uuid4().hex[:8],
            "metadata": {**({"tags": tags} if tags else {}), **({"mystnb": dict(prompts)} if prompts else {}),
                         "rmlib": mark},
            "source": source.strip("\n").splitlines(keepends=True)}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def insert_exercise(path: str, *, after: str, exercise_id: str, title: str, labels: tuple[int, int, int], task: str,
                    hint: str, solution: str, use: list[str] | None = None, use_after: str | None = None,
                    number: int | None = None, chapters: list[str] | None = None) -> None:
    """``labels``: (difficulty 1–5, importance 1–5, minutes); ``hint``: a nudge a stuck student can open (the
    approach or the library call, not the answer); ``after``: the id of the cell the exercise follows; ``use_after``:
    the id of the cell its use cells follow
    (where the chapter has computed what they compare with; default: right after the check); ``chapters``: in a
    template shared by several chapters, the ones whose pages keep the exercise (cell metadata ``rmlib.chapters``).
    An exercise already there is replaced: its old cells go first."""
    ex = Exercise(exercise_id, exercise_id.partition(".")[0], title, *labels, hint=hint.strip())
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    fn = solution.split("def ", 1)[1].split("(", 1)[0]
    heading = f"### Exercise{f' {number}' if number else ''}: {ex.title}\n\n{ex.label()}\n\n"
    new = [_cell("markdown", heading + task.strip("\n") + "\n\n" + ex.hint_block(), exercise_id, "task", [], chapters),
           _cell("code", solution, exercise_id, "solution", [TAGS["solution"]], chapters, SOLUTION_PROMPTS),
           _cell("code", f'from rmbook import course\n\ncourse.check("{exercise_id}", {fn})', exercise_id, "check",
                 [TAGS["check"]], chapters)]
    uses = [_cell("code", u, exercise_id, "use", ["hide-input"], chapters) for u in (use or [])]
    cells = [c for c in nb["cells"] if (c.get("metadata", {}).get("rmlib", {}).get("exercise") or {}).get("id")
             != exercise_id]
    ids = [c.get("id") for c in cells]
    for anchor in (after, use_after):
        if anchor is not None and anchor not in ids:
            raise SystemExit(f"{path}: no cell with id {anchor!r}")
    at = ids.index(after) + 1
    cells[at:at] = new
    if uses:
        u = (ids.index(use_after) + 1 + (len(new) if ids.index(use_after) >= at - 1 else 0)) if use_after else at + len(new)
        cells[u:u] = uses
    nb["cells"] = cells
    check_exercises(nb, path)  # whole: in order, tagged, the solution's markers inside its function
    Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: exercise {exercise_id} at cells {at}–{at + len(new) - 1}")
