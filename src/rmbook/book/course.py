"""The course edition: student and instructor notebooks built from the chapters, which stay the one source.

An exercise is a run of cells in a chapter, marked in cell metadata ``rmlib.exercise = {"id": ..., "role": ...}``:

* ``task``      markdown: the exercise, under its heading ``### Exercise <n>: <title>``, with its labels line and,
  last, its folded hint: the one place they are written (:func:`rmbook.course.task_text` reads them);
* ``solution``  code: the function, written, with the lines a student writes between nbgrader's markers ``### BEGIN
  SOLUTION`` and ``### END SOLUTION`` (:mod:`rmbook.book.solutions`; tag ``hide-input``: the book folds it under the
  exercise, without the markers, behind "Show the solution": cell metadata ``mystnb`` = :data:`SOLUTION_PROMPTS`,
  read by myst-nb). The student edition holds the same cell as a ``stub``: each marked region replaced by ``raise
  NotImplementedError("Exercise <n>: write <function>")``;
* ``check``     code: ``course.check("<id>", <function>)`` on planted data (tag ``remove-input``);
* ``use``       code, optional: the chapter applies the function to its own data. Nothing later reads what a ``use``
  cell defines, so a student notebook whose stub is still empty runs on past it.

:func:`build_course` writes ``<out>/student/<chapter>.ipynb`` (solutions cleared) and ``<out>/instructor/`` (every
cell, the markers kept), each with the chapter's course parameters (``rmbook/chapters/<name>/params.course.yaml``)
injected by papermill.
"""
from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

from rmbook.book import solutions
from rmbook.book.chapters import ROOT, BookError, Chapter, _read_yaml, chapter, chapters, param_file
from rmbook.course import checks, task_text
from rmbook.paths import use_checkout_folders
from rmlib.storage import atomic

__all__ = ["ROLES", "SOLUTION_PROMPTS", "COURSE_DIR", "exercise_cells", "check_exercises", "student_edition",
           "instructor_edition", "course_chapters", "course_parameters", "build_course", "reference_solution",
           "solution_leaks", "execute_edition", "stub_errors"]

ROLES = ("task", "stub", "solution", "check", "use")  # "stub": a solution cell in the student edition
REQUIRED = ("task", "solution", "check")  # a chapter's cells; its student edition makes the stub
TAGS = {"solution": "hide-input", "check": "remove-input"}
# what the folded solution says on the page (myst-nb's cell-level prompts; its default is "Show code cell source")
SOLUTION_PROMPTS = {"code_prompt_show": "Show the solution", "code_prompt_hide": "Hide the solution"}
COURSE_DIR = ROOT / "_build" / "course"
RESULTS = "results"  # a course notebook writes its results next to itself


def _marker(cell: dict) -> dict | None:
    return cell.get("metadata", {}).get("rmlib", {}).get("exercise")


def exercise_cells(nb: dict) -> list[tuple[int, str, str]]:
    """(cell index, exercise id, role) of every marked cell, in notebook order."""
    out = []
    for i, cell in enumerate(nb.get("cells", [])):
        m = _marker(cell)
        if m is not None:
            if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("id"), str):
                raise BookError(f"cell {i}: metadata rmlib.exercise must be {{'id': '<chapter>.<name>', 'role': one "
                                f"of {ROLES}}}, got {m!r}")
            out.append((i, m["id"], m["role"]))
    return out


def _source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _function_name(source: str, where: str) -> str:
    try:
        defs = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    except SyntaxError as e:
        raise BookError(f"{where}: not valid Python ({e})") from None
    if len(defs) != 1:
        raise BookError(f"{where}: must define exactly one function, found {defs}")
    return defs[0]


def _stub_messages(nb: dict) -> dict[str, str]:
    """{exercise id: "Exercise <n>"} from each task cell's heading ("### Exercise 2: ..."), what a stub's
    ``NotImplementedError`` names; "Exercise" alone where the heading has no number."""
    out = {}
    for i, ex, role in exercise_cells(nb):
        if role == "task":
            found = re.search(r"^#+\s*(Exercise(?: \d+)?)\s*:", _source(nb["cells"][i]), re.M)
            out[ex] = found.group(1) if found else "Exercise"
    return out


def stub_source(solution: str, exercise: str, name: str) -> str:
    """The student's cell of a solution: its marked regions replaced by a ``raise NotImplementedError`` that names
    the exercise and the function to write."""
    return solutions.stub(solution, f"{exercise}: write {name}")


def check_exercises(nb: dict, where: str) -> list[str]:
    """The ids of ``nb``'s exercises, after checking each is whole: a check registered for it, its cells in order
    (task, solution, check, then any use cells), a task cell whose heading, labels line and hint can be read, the
    solution defining one function whose body marks what a student writes, and the tags the book needs."""
    known = checks()
    cells = nb.get("cells", [])
    by_id: dict[str, list[tuple[int, str]]] = {}
    for i, ex, role in exercise_cells(nb):
        by_id.setdefault(ex, []).append((i, role))
    for ex, found in by_id.items():
        at = f"{where}: exercise {ex}"
        if ex not in known:
            raise BookError(f"{at} has no check in its chapter's course.py (the course's checks: {sorted(known)})")
        roles = [r for _, r in found]
        if roles[:3] != list(REQUIRED) or any(r != "use" for r in roles[3:]):
            raise BookError(f"{at}: its cells must be task, solution, check (then use cells), found {roles} (the "
                            f"student's stub is made from the solution's {solutions.BEGIN} / {solutions.END} lines)")
        task, solution, check = (cells[i] for i, _ in found[:3])
        _check_task(task, at)
        name = _function_name(_source(solution), f"{at}, solution")
        _check_regions(_source(solution), at)
        if f'check("{ex}", {name})' not in _source(check):
            raise BookError(f'{at}: the check cell must call course.check("{ex}", {name})')
        for role, cell in (("solution", solution), ("check", check)):
            if TAGS[role] not in cell.get("metadata", {}).get("tags", []):
                raise BookError(f"{at}: the {role} cell needs the tag {TAGS[role]!r} (how the book shows it)")
        if solution.get("metadata", {}).get("mystnb") != SOLUTION_PROMPTS:
            raise BookError(f"{at}: the solution cell needs the metadata mystnb = {SOLUTION_PROMPTS} (so the page "
                            "says what the fold hides)")
    return list(by_id)


def _check_task(task: dict, at: str) -> None:
    """The task cell is markdown with the heading, labels line and folded hint the catalogue reads."""
    if task["cell_type"] != "markdown":
        raise BookError(f"{at}: the task cell must be markdown")
    try:
        task_text(_source(task), at)
    except ValueError as e:
        raise BookError(str(e)) from None


def _check_regions(source: str, at: str) -> None:
    """The solution marks at least one region, inside its function, and its stub is valid Python."""
    try:
        if not solutions.regions(source):
            raise ValueError(f"mark the lines a student writes with {solutions.BEGIN} and {solutions.END} (the "
                             "student edition replaces them with a raise NotImplementedError)")
        _function_name(solutions.stub(source, "stub"), "its stub")
    except (ValueError, BookError) as e:
        raise BookError(f"{at}, solution: {e}") from None


def _edition(nb: dict, keep_solutions: bool) -> dict:
    out = copy.deepcopy(nb)
    messages = _stub_messages(out)
    cells = []
    for cell in out["cells"]:
        m = _marker(cell)
        if m and m.get("role") == "solution" and not keep_solutions:
            source = _source(cell)
            cell["source"] = stub_source(source, messages.get(m["id"], "Exercise"), _function_name(source, m["id"]))
            cell["metadata"]["rmlib"]["exercise"] = {**m, "role": "stub"}
            cell["metadata"]["tags"] = [t for t in cell["metadata"].get("tags", []) if t != TAGS["solution"]]
            cell["metadata"].pop("mystnb", None)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    out["cells"] = cells
    out.setdefault("metadata", {}).setdefault("rmlib", {})["edition"] = "instructor" if keep_solutions else "student"
    return out


def student_edition(nb: dict) -> dict:
    """``nb`` with each solution cleared to its stub (the marked regions raise ``NotImplementedError``): what a
    student fills in."""
    return _edition(nb, keep_solutions=False)


def instructor_edition(nb: dict) -> dict:
    """``nb`` with every cell as the chapter has it: each solution written, its markers kept."""
    return _edition(nb, keep_solutions=True)


def course_chapters() -> list[str]:
    """The chapters in ``_toc.yml`` that have exercises, in book order."""
    return [n for n in chapters() if exercise_cells(chapter(n).cells())]


def course_parameters(ch: Chapter) -> dict:
    """The chapter's course configuration: its defaults, then ``rmbook/chapters/<name>/params.course.yaml``'s
    ``parameters:`` (small, published mode or the embedded models), and a results folder next to the notebook."""
    path = param_file(ch.name, "course")
    data = _read_yaml(path) if path.is_file() else {}  # a clear error for a file that is not YAML or no mapping
    if set(data) - {"parameters"} or not isinstance(data.get("parameters", {}), dict):
        raise BookError(f"{path} may hold only `parameters:`, a mapping of NAME: value")
    sources = [(f"the defaults of chapter {ch.name}", ch.defaults), (path, data.get("parameters") or {})]
    ch.check(sources)
    params = {**ch.defaults, **(data.get("parameters") or {})}
    if ch.declares_results:
        params["RESULTS_DIR"] = RESULTS
    return params


MANIFEST = ".course-manifest.json"  # sha256 of each notebook as written, to tell a student's edits from our copy


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _without_run_metadata(text: str) -> bytes:
    """A prepared notebook without what papermill records of the preparing run (temporary paths, times), so that
    building the course twice writes the same bytes."""
    nb = json.loads(text)
    pm = nb.get("metadata", {}).get("papermill")
    if pm is not None:
        nb["metadata"]["papermill"] = {"parameters": pm.get("parameters", {})}
    for cell in nb.get("cells", []):
        cell.get("metadata", {}).pop("papermill", None)
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell["id"] = "injected-parameters"  # papermill draws a new random id each time
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def build_course(out: str | Path = COURSE_DIR, names: list[str] | None = None, log=print, *,
                 force: bool = False) -> dict[str, list[Path]]:
    """Write the student and instructor editions of ``names`` (default: every chapter with exercises) under
    ``out``; returns {edition: [notebook paths]}. Offline: papermill only injects the parameters.

    A notebook that was changed since it was written here (a student's work: filled stubs, saved outputs) is kept,
    not overwritten, unless ``force``; the log says so."""
    import tempfile

    import papermill

    names = names or course_chapters()
    out = Path(out)
    manifest_path = out / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    except ValueError:
        manifest = {}  # a damaged manifest: every existing notebook then counts as edited, and is kept
    written: dict[str, list[Path]] = {"student": [], "instructor": []}
    for name in names:
        ch = chapter(name)
        nb = ch.cells()
        ids = check_exercises(nb, str(ch.template))
        if not ids:
            raise BookError(f"chapter {name} has no exercises (cells marked rmlib.exercise)")
        params = course_parameters(ch)
        for edition, make in (("student", student_edition), ("instructor", instructor_edition)):
            dest = Path(out) / edition / f"{name}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            key = f"{edition}/{name}.ipynb"
            if dest.is_file() and not force and _sha(dest.read_bytes()) != manifest.get(key):
                log(f"[course] kept {dest}: it was changed after it was built (delete it, or pass --force, for a "
                    "fresh copy)")
                written[edition].append(dest)
                continue
            with tempfile.TemporaryDirectory() as tmp:
                src, done = Path(tmp) / "in.ipynb", Path(tmp) / "out.ipynb"
                src.write_text(json.dumps(make(nb)), encoding="utf-8")
                papermill.execute_notebook(str(src), str(done), parameters=params, prepare_only=True,
                                           kernel_name="python3", progress_bar=False, log_output=False)
                data = _without_run_metadata(done.read_text(encoding="utf-8"))
            atomic.write_bytes(dest, data)
            manifest[key] = _sha(data)
            atomic.write_bytes(manifest_path, json.dumps(manifest, indent=1, sort_keys=True).encode())
            written[edition].append(dest)
        log(f"[course] {name}: {len(ids)} exercise{'' if len(ids) == 1 else 's'} ({', '.join(ids)})")
    return written


def reference_solution(exercise_id: str):
    """The function that exercise ``exercise_id``'s solution cell defines, executed on its own (a solution cell
    imports what it needs), for the unit tests that prove each check passes on it."""
    chapter_name = exercise_id.partition(".")[0]
    nb = chapter(chapter_name).cells()
    for i, ex, role in exercise_cells(nb):
        if ex == exercise_id and role == "solution":
            source = _source(nb["cells"][i])
            name = _function_name(source, f"exercise {exercise_id}, solution")
            namespace: dict = {}
            exec(compile(source, f"<{exercise_id} solution>", "exec"), namespace)
            return namespace[name]
    raise BookError(f"no solution cell for exercise {exercise_id} in chapter {chapter_name}")


def solution_leaks(student: dict, instructor: dict) -> list[str]:
    """Exercise ids whose solution text (a line of the solution that its stub lacks) appears in ``student``."""
    text = "\n".join(_source(c) for c in student["cells"])
    cells = instructor["cells"]
    leaks = []
    for i, ex, role in exercise_cells(instructor):
        if role != "solution":
            continue
        source = _source(cells[i])
        stub_lines = {ln.strip() for ln in stub_source(source, "", "").splitlines()}
        own = [ln.strip() for ln in solutions.unmarked(source).splitlines()
               if len(ln.strip()) > 12 and ln.strip() not in stub_lines and not ln.strip().startswith("#")]
        if any(ln in text for ln in own) or any(r == "solution" for _, _, r in exercise_cells(student)):
            leaks.append(ex)
    return leaks


def execute_edition(path: str | Path, *, allow_errors: bool, timeout: int = 1200) -> dict:
    """Run a course notebook top to bottom in its own folder (as a student's "Run all" would); returns the executed
    notebook. With ``allow_errors`` every cell runs, whatever the earlier cells raised. Its kernel gets the checkout's
    data, cache and mirror folders where the environment names none, as the book's chapters do."""
    import tempfile

    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(str(path), as_version=4)
    use_checkout_folders()  # as the book's runner: the kernel reads data/external and .cache/rmlib (#64 item 4)
    with tempfile.TemporaryDirectory(prefix="rmlib-course-") as tmp:  # IPC sockets, as the book's runner uses
        km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(tmp) / "kernel"))
        try:
            NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                           resources={"metadata": {"path": str(path.parent)}}).execute()
        finally:
            if km.has_kernel:
                km.shutdown_kernel(now=True)
    return json.loads(nbformat.writes(nb))


def stub_errors(executed: dict) -> tuple[list[str], list[str]]:
    """(exercise ids whose check cell raised its own stub's ``NotImplementedError``, every other error as
    "cell i: Ename: message") of an executed student notebook. An error counts as the stub's only when it is a
    ``NotImplementedError`` in that exercise's check or use cell whose traceback passes through the stub function."""
    cells = executed["cells"]
    stubs = {ex: _function_name(_source(cells[i]), f"exercise {ex}, stub")
             for i, ex, role in exercise_cells(executed) if role == "stub"}
    reached, other = [], []
    for i, cell in enumerate(cells):
        m = _marker(cell) or {}
        for o in cell.get("outputs", []):
            if o.get("output_type") != "error":
                continue
            trace = "\n".join(o.get("traceback", []))
            if (o.get("ename") == "NotImplementedError" and m.get("role") in ("check", "use")
                    and m.get("id") in stubs and f"in {stubs[m['id']]}" in _plain(trace)):
                if m["role"] == "check":
                    reached.append(m["id"])
            else:
                other.append(f"cell {i}: {o.get('ename')}: {o.get('evalue')}")
    return reached, other


def _plain(text: str) -> str:
    """A traceback without its terminal colour codes."""
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)
