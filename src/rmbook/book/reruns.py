"""A chapter rerun with parameters of its own gets a page of its own, beside the book's.

`make chapter NB=heterogeneity MODELS='["local:/path/my-rm"]'` used to execute into the book's own page and write
the results the claims page reads: a researcher's model replaced the book's, and the claims judged it. A rerun whose
parameters differ from the book's (`make book`'s: the template's defaults and the chapter's ``params.yaml``) now
goes into ``book/_executed/reruns/<name>-<key>/`` (the executed notebook, its stamp and its results), where ``key``
hashes the parameters, so the same rerun again is up to date and another gets a folder of its own. The HTML build
lists every rerun that ran to the end (its stamp) under "Your reruns" (:func:`toc_with_reruns`), each page opening
with what it changed (:func:`mark_rerun`), and those that stopped at an error apart, under :data:`FAILED_PART`. The book's pages, results and claims stay as `make book` made them.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from rmbook.book.chapters import EXECUTED, ROOT, BookError, chapter, reads_results
from rmbook.book.stamps import stamp_path
from rmlib.storage import atomic

__all__ = ["RERUNS", "rerun_dir", "changed_parameters", "rerun_pages", "toc_with_reruns", "write_toc", "mark_rerun",
           "RERUN_PART", "FAILED_PART"]

RERUNS = EXECUTED / "reruns"
RERUN_PART = "Your reruns"
# A rerun that stopped at an error has a page (its traceback) but no stamp and no results: not one of "Your reruns".
FAILED_PART = "Reruns that did not finish (no results: each page shows the error; fix it and run the chapter again)"


def _canonical(params: dict) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def _parameters(name: str, tiny: bool, params_file, overrides) -> tuple[dict, dict]:
    """(this run's merged parameters, the book's own run's) of chapter ``name``."""
    ch = chapter(name)
    return (ch.parameters(tiny=tiny, params_file=params_file, overrides=overrides, validate=False),
            ch.parameters(validate=False))


def rerun_dir(name: str, *, tiny: bool = False, params_file=None, overrides: dict | None = None,
              reruns: Path = RERUNS) -> Path | None:
    """Where chapter ``name`` run with these parameters goes: None when they are the book's own (the book's page),
    else ``reruns/<name>-<8 hex of the merged parameters>``. A chapter that judges the book's own results (the
    claims page) is not rerun apart from them: refused with what to do instead."""
    mine, book = _parameters(name, tiny, params_file, overrides)
    if _canonical(mine) == _canonical(book):
        return None
    if reads_results(name):
        raise BookError(f"{name} judges the results of the book's own chapters ({', '.join(reads_results(name))}); "
                        "it is not rerun apart from them. Change its parameters in src/rmbook/chapters/"
                        f"{name}/params.yaml and run `make book`")
    return reruns / f"{name}-{hashlib.sha256(_canonical(mine).encode()).hexdigest()[:8]}"


def changed_parameters(name: str, *, tiny: bool = False, params_file=None, overrides: dict | None = None) -> dict:
    """The parameters of this run whose values differ from the book's own run of ``name``."""
    mine, book = _parameters(name, tiny, params_file, overrides)
    return {k: v for k, v in mine.items() if k not in book or _canonical(book[k]) != _canonical(v)}


def rerun_pages(root: Path = ROOT) -> list[Path]:
    """Every executed rerun under ``root`` (``book/_executed/reruns/<name>-<key>/<name>.ipynb``), sorted."""
    folder = root / RERUNS.relative_to(ROOT)
    return sorted(p for p in folder.glob("*/*.ipynb") if p.parent.name.startswith(f"{p.stem}-"))


def toc_with_reruns(toc: dict, root: Path = ROOT) -> dict | None:
    """``toc`` (the parsed _toc.yml) with a last part listing every rerun page that ran to the end (it has a stamp),
    and after it, apart, those that stopped at an error (:data:`FAILED_PART`); None when there is none (the book is
    then built from _toc.yml itself)."""
    pages = rerun_pages(root)
    if not pages:
        return None
    finished = [p for p in pages if stamp_path(p.stem, p.parent).is_file()]
    parts = [(RERUN_PART, finished), (FAILED_PART, [p for p in pages if p not in finished])]
    return {**toc, "parts": [*toc.get("parts", []),
                             *({"caption": caption, "chapters": [{"file": str(p.relative_to(root).with_suffix(""))}
                                                                 for p in listed]}
                               for caption, listed in parts if listed)]}


def write_toc(root: Path, out: Path) -> Path | None:
    """The toc to build ``root`` with: a copy of _toc.yml with the reruns added, written under ``out``, or None."""
    if not rerun_pages(root):
        return None
    full = toc_with_reruns(yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8")), root)
    path = out / "_build" / "_toc_with_reruns.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(full, sort_keys=False), encoding="utf-8")
    return path


def mark_rerun(notebook: Path, name: str, changed: dict) -> None:
    """Open the executed rerun with what it changed and where the book's own page is (after the title cell)."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    shown = ", ".join(f"`{k} = {json.dumps(v, default=str)}`" for k, v in sorted(changed.items())) or "other values"
    note = nbformat.v4.new_markdown_cell(
        "```{admonition} A rerun\n"
        f"This page is a rerun of this chapter with parameters of its own: {shown}. The book's own page, "
        f"run with the parameters of `make book`, is unchanged: {{doc}}`/book/_executed/{name}`, and so are the results "
        "that the claims page judges.\n```")
    note.metadata["tags"] = ["rmlib-rerun"]
    nb.cells = [c for c in nb.cells if "rmlib-rerun" not in c.metadata.get("tags", [])]
    nb.cells.insert(1 if nb.cells else 0, note)
    atomic.write_bytes(notebook, nbformat.writes(nb).encode("utf-8"))
