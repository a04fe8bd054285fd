"""The one way a chapter's sentences are written: a Jinja template per chapter, rendered from its results.

A chapter's ``prose.md.j2`` (in its folder, :mod:`rmbook.chapters`) holds one macro per paragraph the chapter says
(``{% macro extremes(s) %}``), so a reader can read a chapter's sentences as sentences, in one file, and a test can
render each from planted results; sentences several chapters share are in ``templates/``. A macro takes sections of
the chapter's results type (its ``types.py``) and never computes: every
number it shows is a field there, and a choice of words is made from a field (``{% if s.p_best is not none %}``).
The phrase helpers below are the filters the templates share, so a number is written the same way on every page.

Undefined names are errors (a renamed field fails the chapter's prose test, not silently blanks a sentence).
"""
from __future__ import annotations

import functools
import math
import re
from pathlib import Path

import jinja2

from rmbook.locate import FOLDER
from rmbook.report.tables import p_text, show_whitespace

__all__ = ["render", "num", "pct", "count", "plural", "signed", "whitespace", "term", "p_value", "FILTERS"]


def _finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def num(x, spec: str = ".2f") -> str:
    """A number as the prose writes it (``—`` when it was not computed)."""
    return format(x, spec) if _finite(x) else "—"


def pct(x, digits: int = 1) -> str:
    """A share as a percentage: ``0.123`` -> ``12.3%``."""
    return format(x, f".{digits}%") if _finite(x) else "—"


def count(n) -> str:
    """A count with thousands separators: ``7530`` -> ``7,530``."""
    return format(int(n), ",") if _finite(n) else "—"


def plural(n, word: str, many: str | None = None) -> str:
    """A count with its noun in the number it takes: ``1, "model"`` -> ``1 model``, ``10`` -> ``10 models``
    (``many``: an irregular plural), rather than "10 model(s)"."""
    return f"{count(n)} {word if _finite(n) and int(n) == 1 else (many or word + 's')}"


def signed(x, spec: str = "+.2f") -> str:
    """A difference with its sign: ``0.2`` -> ``+0.20``."""
    return format(x, spec) if _finite(x) else "—"


def whitespace(text: str) -> str:
    """A token's text with its leading and trailing spaces made visible (``␣``), as the tables show them."""
    return show_whitespace(text)


_LEVEL = re.compile(r"^\w+\[T\.(.+)\]$")


def term(name: str) -> str:
    """A regression term as a sentence names it: its levels joined by ``×``
    (``family[T.Llama]:category[T.Communion]`` -> ``Llama × Communion``), not patsy's coding, which a reader cannot
    parse and a phone cannot wrap (one 60-character word pushed the page sideways at 390 px)."""
    parts = [_LEVEL.match(p) for p in str(name).split(":")]
    return " × ".join(m.group(1) if m else p for m, p in zip(parts, str(name).split(":")))


def p_value(x) -> str:
    """``p = 0.012`` or ``p < 0.001``, as the tables print p (:func:`rmbook.report.tables.p_text`), not ``1.68e-06``."""
    text = p_text(x)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


FILTERS = {"num": num, "pct": pct, "count": count, "plural": plural, "signed": signed, "whitespace": whitespace,
           "term": term, "p_value": p_value}


LOADED_TEMPLATES: set[str] = set()  # the template files this process rendered (from src/): its stamp hashes these
SHARED = Path(__file__).resolve().parent / "templates"  # sentences several chapters share (``beside``, ``card``)


class _RecordingLoader(jinja2.FileSystemLoader):
    """A chapter's sentences (``<chapter>/prose.md.j2`` in its folder, :mod:`rmbook.chapters`) and the shared ones,
    each file recorded as it is read (:mod:`rmbook.book.imported`), so an edit to one chapter's sentences makes only
    the chapters that rendered them stale."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        LOADED_TEMPLATES.add(Path(filename).resolve().relative_to(FOLDER.parents[1]).as_posix())
        return source, filename, uptodate


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=_RecordingLoader([str(FOLDER), str(SHARED)]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             autoescape=False, keep_trailing_newline=False)
    env.filters.update(FILTERS)
    return env


def _template_name(chapter: str) -> str:
    """A chapter's sentences are its folder's ``prose.md.j2``; shared ones are ``templates/<name>.md.j2``."""
    return f"{chapter}/prose.md.j2" if (FOLDER / chapter / "prose.md.j2").is_file() else f"{chapter}.md.j2"


_ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")  # a Markdown table row: kept on a line of its own


def _paragraph(block: str) -> str:
    """One paragraph's lines joined with single spaces; a line that starts a list item (``- ``, ``1. ``) starts a
    new line, so a list stays a tight list and an item may be written over several template lines. An item keeps
    its indentation, so an item indented under another stays nested. A table row (``| ... |``) stays one line."""
    out: list[str] = []
    for line in block.splitlines():
        if not line.strip():
            continue
        if _TABLE_ROW.match(line):
            out.append(line.strip())
        elif _ITEM.match(line) or not out or _TABLE_ROW.match(out[-1]):
            indent = line[:len(line) - len(line.lstrip())] if _ITEM.match(line) else ""
            out.append(indent + " ".join(line.split()))
        else:
            out[-1] += " " + " ".join(line.split())
    return "\n".join(out)


def _paragraphs(text: str) -> str:
    """Markdown from a macro's output: each paragraph made one line (or one line per list item), paragraphs kept
    apart by a blank line."""
    paras = [_paragraph(p) for p in re.split(r"\n\s*\n", text.strip())]
    return "\n\n".join(p for p in paras if p)


def render(chapter: str, part: str, **context) -> str:
    """Paragraph ``part`` of chapter ``chapter``'s sentences (macro ``part`` of
    ``rmbook/chapters/<chapter>/prose.md.j2``, or of a shared ``templates/<name>.md.j2``), rendered from ``context``
    (sections of the chapter's results)."""
    name = _template_name(chapter)
    try:
        template = _environment().get_template(name)
    except jinja2.TemplateNotFound:
        raise KeyError(f"no sentences for chapter {chapter!r}: add rmbook/chapters/{chapter}/prose.md.j2") from None
    macro = getattr(template.module, part, None)
    if macro is None:
        raise KeyError(f"{name} has no macro {part!r}")
    return _paragraphs(str(macro(**context)))
