#!/usr/bin/env python3
"""Measure the course notebooks' run times into each taught chapter's folder (``course.yaml``), and write the
course page's generated parts (:mod:`rmbook.book.syllabus`: each session's exercises, the times table).

    python tools/course_page.py            # write book/_executed/course/ (what book/course.md includes)
    python tools/course_page.py --check    # exit 1 if a chapter with exercises is in no session or not measured
    python tools/course_page.py --measure  # build the course, run every student and instructor notebook here, one at
                                           # a time, and record their times in each chapter's course.yaml (run it
                                           # with nothing else running: contention slows small runs 5-10x)
    python tools/course_page.py --measure implicit_vs_explicit   # measure again only these chapters (after a change
                                           # to their course parameters); each keeps its own date and load

A chapter's session (``session:`` in its ``course.yaml``) is a teacher's choice, written by hand; ``--measure``
keeps it and rewrites ``times:``.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rmbook.book.course import build_course, course_chapters, execute_edition, stub_errors  # noqa: E402
from rmbook.book.syllabus import (COURSE_FILE, chapter_exercises, course_metadata, taught_chapters,  # noqa: E402
                                  write_syllabus)
from rmbook.locate import FOLDER  # noqa: E402

HEADER = ("# This chapter in the course edition (rmbook.book.syllabus): the syllabus session that teaches it (a teacher's\n"
          "# choice; book/course.md includes each session's exercises) and its notebooks' times, written by\n"
          "# `python tools/course_page.py --measure <chapter>`\n")


def problems() -> list[str]:
    """What the course page cannot show: a chapter with exercises that no session teaches, or whose notebooks were
    not measured (or were measured with another number of exercises)."""
    out = []
    taught = set(taught_chapters())
    for name in course_chapters():
        times = (course_metadata(name) or {}).get("times")
        if name not in taught:
            out.append(f"{name}: no session (add `session: N` to src/rmbook/chapters/{name}/{COURSE_FILE})")
        elif not times:
            out.append(f"{name}: not measured (run python tools/course_page.py --measure {name})")
        elif times["exercises"] != len(chapter_exercises(name)):
            out.append(f"{name}: measured with {times['exercises']} exercises, has {len(chapter_exercises(name))}")
    return out


def machine() -> str:
    try:
        info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        info = ""
    model = re.search(r"Model name:\s*(.+)", info)
    amx = "with AMX" if "amx" in info else "no AMX"
    return f"{model.group(1).strip() if model else platform.processor()}, {os.cpu_count()} cores, {amx}, no GPU"


def _record(name: str, times: dict) -> None:
    """Write ``times`` into chapter ``name``'s ``course.yaml``, keeping its session."""
    path = FOLDER / name / COURSE_FILE
    data = (course_metadata(name) or {}) | {"times": times}
    path.write_text(HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def measure(names: list[str] | None = None) -> None:
    """Run and time every course notebook (``names``: only these chapters), each chapter's times written into its
    own ``course.yaml`` with the machine, the date and the load before the runs."""
    load, today = round(os.getloadavg()[0], 2), time.strftime("%Y-%m-%d")
    if names:
        unknown = sorted(set(names) - set(course_chapters()))
        if unknown:
            raise SystemExit(f"no course notebook for {unknown}; the course chapters are {course_chapters()}")
    failed, measured = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        course = build_course(tmp, names, log=lambda *_: None)
        for student, teacher in zip(course["student"], course["instructor"]):
            t0 = time.perf_counter()
            reached, other = stub_errors(execute_edition(student, allow_errors=True))
            ts = time.perf_counter() - t0
            t0 = time.perf_counter()
            _, errors = stub_errors(execute_edition(teacher, allow_errors=True))
            ti = time.perf_counter() - t0
            if other or errors:
                failed.append(f"{student.stem}: errors {other or errors}")
                print(failed[-1], flush=True)
                continue
            measured[student.stem] = {"exercises": len(reached), "student_s": round(ts, 1),
                                      "instructor_s": round(ti, 1)}
            print(f"{student.stem}: student {ts:.0f} s, instructor {ti:.0f} s", flush=True)
    import resource

    # the kernels are this process's children: their largest resident set, in GiB (ru_maxrss is in KiB on Linux)
    peak = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20, 2)
    for name, times in measured.items():
        _record(name, {**times, "machine": machine(), "date": today, "load_before": load,
                       "peak_kernel_memory_gib": peak})
    if failed:
        raise SystemExit("not measured (fix them and measure again):\n" + "\n".join(failed))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--measure", nargs="*", metavar="CHAPTER",
                    help="run and time the course notebooks (of these chapters only, if named)")
    args = ap.parse_args()
    if args.measure is not None:
        measure(args.measure or None)
    if args.check:
        for p in problems():
            print(p, file=sys.stderr)
        return 1 if problems() else 0
    for path in write_syllabus(REPO):
        print(path.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
