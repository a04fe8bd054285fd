"""An exercise's solution regions, marked in its code as nbgrader marks them: the lines from ``### BEGIN SOLUTION``
to ``### END SOLUTION``.

One cell holds the whole function. The student edition gets that cell with each region replaced by ``raise
NotImplementedError(...)`` at the region's indentation (what nbgrader's ClearSolutions does), so the stub a student
fills in is the solution's own imports, signature and docstring and cannot drift from them (a hand-written stub once
lacked its solution's imports). The book's page shows the solution without the two marker lines; the instructor
edition keeps them, so a teacher can make the student edition again, or hand it to nbgrader.

Why not nbgrader's ``generate_assignment`` (#64 item 7): it makes a student edition from a course folder
(``source/<assignment>/``, an ``nbgrader_config.py`` and a gradebook database), and installing it brings a notebook
server stack (jupyter_server, notebook, SQLAlchemy, alembic) that the book, which builds its editions offline in
one process, has no use for. What the book takes from it is the convention (the markers, a region cleared to
``raise NotImplementedError``), so the instructor edition still works with nbgrader; the code it would replace is
the few lines below.
"""
from __future__ import annotations

__all__ = ["BEGIN", "END", "regions", "stub", "unmarked", "without_markers"]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def regions(source: str) -> list[tuple[int, int]]:
    """(first, last) line numbers (0-based) of each marked region, marker lines included, in order. A region that
    is not closed, an END without a BEGIN, or a region inside another is a ``ValueError`` that says which line."""
    out, start = [], None
    for i, line in enumerate(source.splitlines()):
        mark = line.strip()
        if mark == BEGIN:
            if start is not None:
                raise ValueError(f"line {i + 1}: {BEGIN} inside the region opened on line {start + 1}")
            start = i
        elif mark == END:
            if start is None:
                raise ValueError(f"line {i + 1}: {END} without a {BEGIN} before it")
            out.append((start, i))
            start = None
    if start is not None:
        raise ValueError(f"line {start + 1}: {BEGIN} is never closed by {END}")
    return out


def stub(source: str, message: str) -> str:
    """``source`` with each marked region replaced by ``raise NotImplementedError(message)``, indented as its
    ``BEGIN`` line. A region at the top level of the cell is refused: its ``raise`` would stop the cell before the
    function is defined."""
    lines = source.splitlines()
    for first, last in reversed(regions(source)):
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        if not indent:
            raise ValueError(f"line {first + 1}: a solution region must be inside the function, not at the top level")
        lines[first:last + 1] = [f"{indent}raise NotImplementedError({message!r})"]
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


def unmarked(source: str) -> str:
    """``source`` without its marker lines: the solution as a reader sees it."""
    marks = {i for region in regions(source) for i in region}
    kept = [line for i, line in enumerate(source.splitlines()) if i not in marks]
    return "\n".join(kept) + ("\n" if source.endswith("\n") and kept else "")


def without_markers(nb: dict) -> dict:
    """A copy of notebook ``nb`` whose code cells show no marker lines (the book's page of a chapter)."""
    cells = []
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "code" and BEGIN in text:
            cell = {**cell, "source": unmarked(text)}
        cells.append(cell)
    return {**nb, "cells": cells}
