"""The course page's generated parts, from the taught chapters' own folders: each session's exercises and the measured
run times of the course notebooks.

A taught chapter says in its folder's ``course.yaml`` which session of the syllabus teaches it (``session:``, a
teacher's choice) and how long its notebooks took (``times:``, written by ``python tools/course_page.py --measure
<chapter>``), so a new taught chapter edits no file outside its folder but ``_toc.yml``. ``book/course.md`` includes
``_executed/course/session-<n>.md`` in each session and ``_executed/course/times.md`` where it states the times;
:func:`write_syllabus` writes them before each HTML build (:func:`rmbook.book.html.build_html`), from the chapters'
exercise cells (:mod:`rmbook.course`'s catalogue) and their ``course.yaml``.
"""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import yaml

from rmbook.book.chapters import EXECUTED, ROOT, BookError, chapter, chapters
from rmbook.book.course import check_exercises
from rmbook.course import catalogue
from rmbook.locate import FOLDER
from rmlib.storage import atomic

__all__ = ["COURSE_FILE", "SYLLABUS_DIR", "course_metadata", "taught_chapters", "session_chapters",
           "chapter_exercises", "exercises_table", "times_table", "write_syllabus"]

COURSE_FILE = "course.yaml"  # in a taught chapter's folder: its session and its notebooks' measured times
SYLLABUS_DIR = "course"      # under the executed chapters: what book/course.md includes


def course_metadata(name: str) -> dict | None:
    """Chapter ``name``'s ``course.yaml`` (session, and times once measured), or None for a chapter not taught."""
    path = FOLDER / name / COURSE_FILE
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data.get("session"), int) or data["session"] < 1:
        raise BookError(f"{path}: `session:` must be the number of the syllabus session that teaches the chapter")
    return data


def taught_chapters() -> list[str]:
    """The chapters of ``_toc.yml`` whose folder has a ``course.yaml``, in book order."""
    return [n for n in chapters() if course_metadata(n) is not None]


def session_chapters(session: int) -> list[str]:
    """The chapters that session ``session`` teaches, in book order."""
    return [n for n in taught_chapters() if course_metadata(n)["session"] == session]


def chapter_exercises(name: str) -> list[str]:
    """The exercise ids of chapter ``name``, in the order its cells hold them."""
    return check_exercises(chapter(name).cells(), name)


def exercises_table(names: list[str]) -> str:
    """A session's exercises, one row each: its title and id, chapter, difficulty, importance and minutes."""
    known = catalogue()
    rows = ["| exercise | chapter | difficulty | importance | minutes |", "|---|---|---|---|---|"]
    for name in names:
        for i, ex in enumerate(chapter_exercises(name), 1):
            e = known[ex]
            rows.append(f"| {i}. {e.title} (`{ex}`) | {name} | {e.difficulty}/5 | {e.importance}/5 | {e.minutes} |")
    return "\n".join(rows) + "\n"


def times_table(names: list[str] | None = None) -> str:
    """The measured times of the taught chapters' notebooks (``names``: these only), each from its ``course.yaml``.
    The machine, date and load most chapters were measured at head the table; a chapter measured at another is
    marked † with its own date and load."""
    times = {n: t for n in (taught_chapters() if names is None else names)
             if (t := (course_metadata(n) or {}).get("times"))}
    if not times:
        return "*Not measured yet: run `python tools/course_page.py --measure`.*\n"
    common = Counter((t["machine"], t["date"], t["load_before"]) for t in times.values()).most_common(1)[0][0]
    machine, date, load = common
    peak = max(t["peak_kernel_memory_gib"] for t in times.values())
    rows = [f"Measured on {machine} (load average {load} before the runs), {date}, one notebook at a time, with the "
            "course parameters (`src/rmbook/chapters/<chapter>/params.course.yaml`). Each student notebook ran first, "
            "on the cache the book's runs had left (the embedded models already unpacked), and swept what the course "
            "parameters add; its instructor notebook then reused those sweeps. "
            f"The largest kernel took {peak} GiB of memory.\n",
            "| chapter | exercises | student notebook, every cell run, stubs empty (s) | instructor notebook (s) |",
            "|---|---|---|---|"]
    again = [f"{n} on {t['date']} (load average {t['load_before']} before)" for n, t in times.items()
             if (t["machine"], t["date"], t["load_before"]) != common]
    for n, t in times.items():
        mark = " †" if (t["machine"], t["date"], t["load_before"]) != common else ""
        rows.append(f"| {n}{mark} | {t['exercises']} | {t['student_s']:.0f} | {t['instructor_s']:.0f} |")
    rows.append(f"| **all** | {sum(t['exercises'] for t in times.values())} | | "
                f"{sum(t['instructor_s'] for t in times.values()):.0f} |")
    if again:
        rows.append(f"\n† Measured again alone, after a change to its course parameters: {'; '.join(again)}.")
    return "\n".join(rows) + "\n"


def _write(path: Path, text: str) -> None:
    if not (path.is_file() and path.read_text(encoding="utf-8") == text):  # unchanged: the book is not rebuilt
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(path, text.encode("utf-8"))


def write_syllabus(root: str | os.PathLike = ROOT) -> list[Path]:
    """Write ``<root>/book/_executed/course/session-<n>.md`` (each session's exercises) and ``times.md`` from the
    taught chapters' folders; returns the files."""
    out = Path(root) / EXECUTED.relative_to(ROOT) / SYLLABUS_DIR
    written = []
    for session in sorted({course_metadata(n)["session"] for n in taught_chapters()}):
        written.append(out / f"session-{session}.md")
        _write(written[-1], exercises_table(session_chapters(session)))
    written.append(out / "times.md")
    _write(written[-1], times_table())
    return written
