"""rmbook.book.syllabus: the course page's sessions and times come from the taught chapters' own folders
(``course.yaml``), so a new taught chapter edits nothing outside its folder but ``_toc.yml`` (#64 item 1: the
syllabus's blocks in book/course.md and book/course_times.yaml had to be edited)."""
from __future__ import annotations

import re

from rmbook import book
from rmbook.book import syllabus
from rmbook.book.course import course_chapters


def test_every_chapter_with_exercises_is_taught_in_a_session_the_course_page_includes():
    assert sorted(syllabus.taught_chapters()) == sorted(course_chapters())
    sessions = {syllabus.course_metadata(n)["session"] for n in syllabus.taught_chapters()}
    page = (book.ROOT / "book" / "course.md").read_text(encoding="utf-8")
    included = {int(n) for n in re.findall(r"```\{include\} _executed/course/session-(\d+)\.md", page)}
    assert included == sessions and 6 <= len(sessions) <= 8
    assert set(re.findall(r"^## Session (\d+)", page, flags=re.M)) == {str(n) for n in sessions}
    assert "```{include} _executed/course/times.md" in page


def test_a_session_lists_its_chapters_exercises_in_book_order(tmp_path):
    assert syllabus.session_chapters(2) == ["heterogeneity", "elo_misalignment"]
    table = syllabus.exercises_table(syllabus.session_chapters(2))
    assert "| 1. Kendall's τ-b on tied scores (`heterogeneity.tau_b`) | heterogeneity | 2/5 | 4/5 | 15 |" in table
    written = syllabus.write_syllabus(tmp_path)
    assert (tmp_path / "book" / "_executed" / "course" / "session-2.md").read_text(encoding="utf-8") == table
    assert written[-1].name == "times.md"


def test_a_chapter_measured_at_another_time_is_marked_with_its_own_date_and_load(monkeypatch):
    at = {"machine": "a CPU", "peak_kernel_memory_gib": 2.0}
    planted = {"heterogeneity": {"exercises": 2, "student_s": 25.0, "instructor_s": 23.0, "date": "2026-12-01",
                                 "load_before": 0.5, **at},
               "framing": {"exercises": 2, "student_s": 35.0, "instructor_s": 31.0, "date": "2026-12-01",
                           "load_before": 0.5, **at},
               "blinding": {"exercises": 2, "student_s": 36.0, "instructor_s": 30.0, "date": "2026-12-02",
                            "load_before": 0.1, **at}}
    monkeypatch.setattr(syllabus, "course_metadata", lambda n: {"session": 1, "times": planted[n]})
    table = syllabus.times_table(list(planted))
    assert "| blinding † | 2 | 36 | 30 |" in table and "| heterogeneity | 2 | 25 | 23 |" in table
    assert "blinding on 2026-12-02 (load average 0.1 before)" in table and "heterogeneity on" not in table
    assert "Measured on a CPU (load average 0.5 before the runs), 2026-12-01" in table
    assert "| **all** | 6 | | 84 |" in table
