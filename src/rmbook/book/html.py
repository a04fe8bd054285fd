"""The offline HTML: ``jupyter-book build`` of the executed chapters, skipped when none of its inputs changed."""
from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from rmbook.book.chapters import EXECUTED, ROOT, BookError
from rmbook.book.landing import write_landing
from rmbook.book.syllabus import write_syllabus
from rmbook.book.reruns import FAILED_PART, write_toc
from rmbook.book.stamps import page_problem
from rmbook.book.vendor import VENDOR_FILES

__all__ = ["build_html", "unfinished_pages", "without_pages"]

EXECUTED_PART = EXECUTED.relative_to(ROOT).as_posix()  # book/_executed: the pages a run writes and stamps


def unfinished_pages(toc: dict, root: Path) -> dict[str, str]:
    """{toc file: why} for each executed page the toc lists that its run did not finish
    (:func:`rmbook.book.stamps.page_problem`): never executed, failed or stopped half way (no stamp), or rewritten
    since. An interrupted `make book` used to publish a half-executed page with its raw parameters (#62). Reruns
    that stopped at an error stay, apart, under :data:`rmbook.book.reruns.FAILED_PART`: their page is the error."""
    out = {}
    parts = [p for p in toc.get("parts", []) if not (isinstance(p, dict) and p.get("caption") == FAILED_PART)]
    for entry in _toc_files({**toc, "parts": parts}):
        path = root / entry
        if entry.startswith(EXECUTED_PART + "/"):
            problem = page_problem(path.name, path.parent)
            if problem is not None:
                out[entry] = problem
    return out


def _toc_files(node) -> list[str]:
    if isinstance(node, dict):
        return ([node["file"]] if isinstance(node.get("file"), str) else []) + \
            [f for key in ("parts", "chapters", "sections") for f in _toc_files(node.get(key, []))]
    return [f for item in node for f in _toc_files(item)] if isinstance(node, list) else []


def without_pages(node, drop: set[str]):
    """The toc ``node`` less the entries whose file is in ``drop`` (and any part left with no chapter)."""
    if isinstance(node, list):
        kept = [without_pages(n, drop) for n in node if not (isinstance(n, dict) and n.get("file") in drop)]
        return [n for n in kept if not (isinstance(n, dict) and "chapters" in n and not n["chapters"])]
    if isinstance(node, dict):
        return {k: without_pages(v, drop) if k in ("parts", "chapters", "sections") else v for k, v in node.items()}
    return node


def _finished_toc(root: Path, out: Path, log) -> Path | None:
    """The toc to build with: _toc.yml plus the reruns (:func:`rmbook.book.reruns.write_toc`), less every page its
    run did not finish, each named in the log with why; None when that is _toc.yml itself."""
    path = write_toc(root, out)
    toc = yaml.safe_load((path or root / "_toc.yml").read_text(encoding="utf-8"))
    left_out = unfinished_pages(toc, root)
    if not left_out:
        return path
    for entry, why in sorted(left_out.items()):
        log(f"[book] left out of the HTML: {entry} ({why}); `make book` runs it")
    finished = out / "_build" / "_toc_finished.yml"
    finished.parent.mkdir(parents=True, exist_ok=True)
    finished.write_text(yaml.safe_dump(without_pages(toc, set(left_out)), sort_keys=False), encoding="utf-8")
    return finished


def _html_inputs_hash(root: Path) -> str:
    """Hash of everything the HTML is built from (config, toc, pages, executed notebooks, vendored JS)."""
    h = hashlib.sha256()
    files = [root / "_config.yml", root / "_toc.yml"] + sorted(p for p in (root / "book").rglob("*") if p.is_file())
    for p in files:
        if p.suffix == ".stamp" or not p.is_file():
            continue
        h.update(str(p.relative_to(root)).encode())
        st = p.stat()
        # Vendored files are large and change only with their version markers: size + mtime suffice.
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode() if "vendor" in p.parts else p.read_bytes())
    return h.hexdigest()


def build_html(root: str | os.PathLike = ROOT, out: str | os.PathLike | None = None, *, strict: bool = False,
               force: bool = False, log=print) -> Path:
    """``jupyter-book build`` of the book at ``root`` into ``out/_build/html`` (default ``out`` = ``root``).

    Skipped when no input changed since the last successful build; otherwise Sphinx rebuilds
    incrementally from ``out/_build/.doctrees``. A page whose run did not finish is left out, and the log says
    which and why (:func:`unfinished_pages`). Returns the html directory.
    """
    root = Path(root)
    missing = [f for f in VENDOR_FILES if not (root / "book" / "_static" / "vendor" / f).is_file()]
    if missing:
        raise BookError(f"vendored JS {missing} missing under {root}/book/_static/vendor: run "
                        "`rmlib book vendor` (or `make book`) first")
    out = Path(out) if out else root
    html = out / "_build" / "html"
    write_landing(root)  # the landing page opens with the claims page's tally (rmbook.book.landing)
    write_syllabus(root)  # the course page's sessions and times, from the taught chapters' folders
    stamp = out / "_build" / "html.stamp"
    digest = _html_inputs_hash(root)
    if not force and (html / "index.html").is_file() and stamp.is_file() and stamp.read_text() == digest:
        sync_static(root / "book" / "_static", html / "_static")  # repairs a build made before the sync existed
        return html
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", str(root),
           "--path-output", str(out)]
    toc = _finished_toc(root, out, log)  # the reruns under "Your reruns", less any unfinished page
    if toc is not None:
        cmd += ["--toc", str(toc)]
    if strict:
        cmd += ["-W", "-n", "--keep-going"]
    stamp.unlink(missing_ok=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BookError(f"jupyter-book build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    sync_static(root / "book" / "_static", html / "_static")
    stamp.write_text(digest)
    return html


def sync_static(source: Path, dest: Path) -> list[Path]:
    """Copy each file of the book's static folder that the built HTML lacks or holds in another version; returns
    the files copied. Why: when no page changed, Sphinx 7.4 reports "no targets are out of date" and stops before it
    copies static files, so an edit to ``book/_static/rmlib.css`` alone never reached the pages (seen 2026-12-06)."""
    copied = []
    for f in sorted(p for p in source.rglob("*") if p.is_file()):
        target = dest / f.relative_to(source)
        if not target.is_file() or not filecmp.cmp(f, target):  # same size and mtime, or same bytes
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
            copied.append(target)
    return copied
