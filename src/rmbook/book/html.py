"""The offline HTML: ``jupyter-book build`` of the executed chapters, skipped when none of its inputs changed."""
from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from rmbook.book.chapters import ROOT, BookError
from rmbook.book.landing import write_landing
from rmbook.book.reruns import write_toc
from rmbook.book.vendor import VENDOR_FILES

__all__ = ["build_html"]


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
               force: bool = False) -> Path:
    """``jupyter-book build`` of the book at ``root`` into ``out/_build/html`` (default ``out`` = ``root``).

    Skipped when no input changed since the last successful build; otherwise Sphinx rebuilds
    incrementally from ``out/_build/.doctrees``. Returns the html directory.
    """
    root = Path(root)
    missing = [f for f in VENDOR_FILES if not (root / "book" / "_static" / "vendor" / f).is_file()]
    if missing:
        raise BookError(f"vendored JS {missing} missing under {root}/book/_static/vendor: run "
                        "`rmlib book vendor` (or `make book`) first")
    out = Path(out) if out else root
    html = out / "_build" / "html"
    write_landing(root)  # the landing page opens with the claims page's tally (rmbook.book.landing)
    stamp = out / "_build" / "html.stamp"
    digest = _html_inputs_hash(root)
    if not force and (html / "index.html").is_file() and stamp.is_file() and stamp.read_text() == digest:
        sync_static(root / "book" / "_static", html / "_static")  # repairs a build made before the sync existed
        return html
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", str(root),
           "--path-output", str(out)]
    toc = write_toc(root, out)  # the chapters' reruns, listed under "Your reruns" (rmbook.book.reruns)
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
