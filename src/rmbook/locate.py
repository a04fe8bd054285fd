"""Where the book's chapters are: their folders (``rmbook/chapters/<name>/``) and their notebook templates.

A locator, not a chapter: the shared layers (:mod:`rmbook.analysis`, :mod:`rmbook.report`, :mod:`rmbook.course`)
find a chapter's module or template by its name here, so none of them imports :mod:`rmbook.chapters` (which would
make them a layer above the chapters they serve)."""
from pathlib import Path

__all__ = ["FOLDER", "PACKAGE", "NOTEBOOKS"]

FOLDER = Path(__file__).resolve().parent / "chapters"  # one folder per chapter (or shared template)
PACKAGE = "rmbook.chapters"  # a chapter's module by name: f"{PACKAGE}.{chapter}.{module}"
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"  # the chapters' notebook templates (a checkout's)
