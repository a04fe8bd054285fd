"""Findings first: a chapter's "In brief" moved under its page's title.

A notebook computes its findings last, so a chapter shows its brief (:mod:`rmbook.report.brief`) in a final code
cell tagged ``in-brief`` (and ``remove-cell``, so the page does not show it twice). After papermill has run the
chapter, :func:`lift_in_brief` copies that cell's markdown into a box right under the title, after the content
warning where the page has one (a warning comes before anything it warns of). The executed notebook then reads the
same way in Jupyter and in the book, and every sentence in the box was still computed by the run.
"""
from __future__ import annotations

import os
import re

from rmbook.book.chapters import BookError
from rmlib.storage import atomic

__all__ = ["BRIEF_TAG", "LIFTED_TAG", "brief_text", "lift_in_brief", "split_title"]

BRIEF_TAG = "in-brief"          # the template's cell that shows the brief
LIFTED_TAG = "rmlib-in-brief"   # the box the runner puts under the title
_WARNING = re.compile(r"```\{admonition\} Content warning\n.*?\n```\n?", re.S)


def brief_text(nb) -> str | None:
    """The markdown the ``in-brief`` cell of an executed notebook displayed (None when it has no such cell, or
    that cell never ran)."""
    cells = [c for c in nb.cells if BRIEF_TAG in c.get("metadata", {}).get("tags", [])]
    if not cells:
        return None
    if len(cells) > 1:
        raise BookError(f"{len(cells)} cells are tagged {BRIEF_TAG!r}: a chapter has one brief")
    if cells[0].get("execution_count") is None and not cells[0].get("outputs"):
        return None
    texts = ["".join(o.get("data", {}).get("text/markdown", "")) for o in cells[0].get("outputs", [])]
    return "\n\n".join(t.strip() for t in texts if t.strip())


def split_title(source: str) -> tuple[str, str]:
    """(the title and any content warning right after it, the rest) of a page's first markdown cell."""
    lines = source.split("\n")
    if not lines or not lines[0].startswith("# "):
        raise BookError(f"a chapter's first cell starts with its '# ' title, not {lines[0][:60]!r}")
    head, rest = lines[0], "\n".join(lines[1:]).lstrip("\n")
    warning = _WARNING.match(rest)
    if warning:
        head += "\n\n" + warning.group(0).rstrip("\n")
        rest = rest[warning.end():].lstrip("\n")
    return head, rest


def lift_in_brief(notebook: str | os.PathLike) -> bool:
    """Put the brief of an executed ``notebook`` in a box under its title (rewrites the file; running it twice
    leaves one box). False when the notebook has no brief cell; an error when that cell showed no text."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    text = brief_text(nb)
    if text is None:
        return False
    if not text:
        raise BookError(f"{notebook}: its {BRIEF_TAG!r} cell displayed no markdown, so the page would open with an "
                        "empty brief (see that cell's outputs)")
    cells = [c for c in nb.cells if LIFTED_TAG not in c.get("metadata", {}).get("tags", [])]
    first = cells[0] if cells and cells[0].cell_type == "markdown" else None
    if first is None:
        raise BookError(f"{notebook}: a chapter opens with a markdown cell holding its title")
    head, rest = split_title(first.source)
    box = nbformat.v4.new_markdown_cell(f"```{{admonition}} In brief\n:class: tip\n{text}\n```",
                                        metadata={"tags": [LIFTED_TAG]})
    first.source = head
    after = [nbformat.v4.new_markdown_cell(rest)] if rest.strip() else []
    nb.cells = [first, box, *after, *cells[1:]]
    atomic.write_bytes(notebook, nbformat.writes(nb).encode("utf-8"))
    return True
