#!/usr/bin/env python3
"""Fill the generated parts of the syllabus, book/course.md: each session's exercise table (from rmbook.course's
catalogue and the chapters' marked cells) and the measured run times of the course notebooks (book/course_times.yaml).

    python tools/course_page.py            # rewrite the generated blocks of book/course.md
    python tools/course_page.py --check    # exit 1 if they are out of date (tests/unit/tools/test_course_page.py)
    python tools/course_page.py --measure  # build the course, run every student and instructor notebook here, one at
                                           # a time, and record their times in book/course_times.yaml (run it with
                                           # nothing else running: contention slows small runs 5-10x)
    python tools/course_page.py --measure implicit_vs_explicit   # measure again only these chapters (after a change
                                           # to their course parameters); each keeps its own date and load

A block is ``<!-- exercises: <chapter> ... -->`` ... ``<!-- /exercises -->`` or ``<!-- times -->`` ... ``<!-- /times -->``.
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

from rmbook.book import chapter  # noqa: E402
from rmbook.book.course import build_course, check_exercises, course_chapters, execute_edition, stub_errors  # noqa: E402
from rmbook.course import catalogue  # noqa: E402

PAGE = REPO / "book" / "course.md"
TIMES = REPO / "book" / "course_times.yaml"
BLOCK = re.compile(r"(<!-- (exercises|times)(:[^>]*)? -->\n).*?(<!-- /\2 -->)", re.S)


def chapter_exercises(name: str) -> list[str]:
    return check_exercises(chapter(name).cells(), name)


def exercises_table(names: list[str]) -> str:
    known = catalogue()
    rows = ["| exercise | chapter | difficulty | importance | minutes |", "|---|---|---|---|---|"]
    for name in names:
        for i, ex in enumerate(chapter_exercises(name), 1):
            e = known[ex]
            rows.append(f"| {i}. {e.title} (`{ex}`) | {name} | {e.difficulty}/5 | {e.importance}/5 | {e.minutes} |")
    return "\n".join(rows) + "\n"


def times_table() -> str:
    if not TIMES.is_file():
        return "*Not measured yet: run `python tools/course_page.py --measure`.*\n"
    data = yaml.safe_load(TIMES.read_text(encoding="utf-8"))
    rows = [f"Measured on {data['machine']} (load average {data['load_before']} before the runs), "
            f"{data['date']}, one notebook at a time, with the course parameters "
            "(`src/rmbook/chapters/<chapter>/params.course.yaml`). Each student notebook ran first, on the cache the book's "
            "runs had left (the embedded models already unpacked), and swept what the course parameters add; its "
            "instructor notebook then reused those sweeps. "
            f"The largest kernel took {data['peak_kernel_memory_gib']} GiB of memory.\n",
            "| chapter | exercises | student notebook, every cell run, stubs empty (s) | instructor notebook (s) |",
            "|---|---|---|---|"]
    again = []
    for name, t in data["chapters"].items():
        mark = ""
        if "date" in t:  # measured again on its own, later (`--measure NAME`)
            again.append(f"{name} on {t['date']} (load average {t['load_before']} before)")
            mark = " †"
        rows.append(f"| {name}{mark} | {t['exercises']} | {t['student_s']:.0f} | {t['instructor_s']:.0f} |")
    total = sum(t["instructor_s"] for t in data["chapters"].values())
    rows.append(f"| **all** | {sum(t['exercises'] for t in data['chapters'].values())} | | {total:.0f} |")
    if again:
        rows.append(f"\n† Measured again alone, after a change to its course parameters: {'; '.join(again)}.")
    return "\n".join(rows) + "\n"


def render(text: str) -> str:
    def fill(m: re.Match) -> str:
        body = times_table() if m.group(2) == "times" else exercises_table((m.group(3) or ":")[1:].split())
        return m.group(1) + body + m.group(4)

    return BLOCK.sub(fill, text)


def machine() -> str:
    try:
        info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        info = ""
    model = re.search(r"Model name:\s*(.+)", info)
    amx = "with AMX" if "amx" in info else "no AMX"
    return f"{model.group(1).strip() if model else platform.processor()}, {os.cpu_count()} cores, {amx}, no GPU"


def measure(names: list[str] | None = None) -> None:
    """Run and time every course notebook (``names``: only these chapters, whose entries are replaced in the times
    file, each with its own date and load, and the others kept)."""
    load, today = round(os.getloadavg()[0], 2), time.strftime("%Y-%m-%d")
    if names:
        unknown = sorted(set(names) - set(course_chapters()))
        if unknown:
            raise SystemExit(f"no course notebook for {unknown}; the course chapters are {course_chapters()}")
        if not TIMES.is_file():
            raise SystemExit("no times to update yet: run --measure without chapter names first")
        out = yaml.safe_load(TIMES.read_text(encoding="utf-8"))
    else:
        out = {"machine": machine(), "date": today, "load_before": load, "chapters": {}}
    problems = []
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
                problems.append(f"{student.stem}: errors {other or errors}")
                print(problems[-1], flush=True)
                continue
            entry = {"exercises": len(reached), "student_s": round(ts, 1), "instructor_s": round(ti, 1)}
            if names:
                entry.update(date=today, load_before=load)
            out["chapters"][student.stem] = entry
            print(f"{student.stem}: student {ts:.0f} s, instructor {ti:.0f} s", flush=True)
    import resource

    # the kernels are this process's children: their largest resident set, in GiB (ru_maxrss is in KiB on Linux)
    peak = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20, 2)
    out["peak_kernel_memory_gib"] = max(peak, out.get("peak_kernel_memory_gib", 0)) if names else peak
    TIMES.write_text("# Written by `python tools/course_page.py --measure`; shown in book/course.md\n"
                     + yaml.safe_dump(out, sort_keys=False, allow_unicode=True), encoding="utf-8")
    if problems:
        raise SystemExit("not measured (fix them and measure again):\n" + "\n".join(problems))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--measure", nargs="*", metavar="CHAPTER",
                    help="run and time the course notebooks (of these chapters only, if named)")
    args = ap.parse_args()
    if args.measure is not None:
        measure(args.measure or None)
    text = PAGE.read_text(encoding="utf-8")
    new = render(text)
    if args.check:
        if new != text:
            print("book/course.md is out of date: run python tools/course_page.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
