"""`rmlib book vendor|run|html`: the book's chapters and HTML (what `make book` and `make chapter` call); the main CLI
(:mod:`rmlib.cli.main`) mounts these with add_subparser().

    rmlib book vendor
    rmlib book run [NAME ...] [--params FILE] [-p KEY VALUE ...] [--force] [--tiny]
    rmlib book html [--out DIR] [--force]
    rmlib book course [NAME ...] [--out DIR] [--force]
"""
from __future__ import annotations

import argparse

import yaml

from rmbook.book import (ROOT, BookError, build_html, changed_parameters, mark_rerun, rerun_dir, run_chapters,
                        write_vendor)
from rmbook.book.course import COURSE_DIR, build_course

__all__ = ["add_subparser", "parse_overrides"]


def parse_overrides(pairs: list[list[str]] | None) -> dict:
    """``-p KEY VALUE`` pairs as parameters, each VALUE read as YAML (a clear error when it is not)."""
    out = {}
    for key, value in pairs or []:
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError as e:
            raise BookError(f"-p {key} {value!r}: not a YAML value ({e}); quote lists like '[\"a\", \"b\"]'") from None
    return out


def _vendor(args: argparse.Namespace) -> int:
    for p in write_vendor():
        print(f"[book] {p.relative_to(ROOT)}")
    return 0


def _run(args: argparse.Namespace) -> int:
    """The book's chapters into the book; a chapter with parameters of its own into a rerun folder of its own
    (:mod:`rmbook.book.reruns`), so the book's page and the results the claims page judges stay as they were."""
    overrides = parse_overrides(args.parameter)
    own = {"tiny": args.tiny, "params_file": args.params, "overrides": overrides}
    if not args.names and (args.tiny or args.params or overrides):
        raise BookError("name the chapters to rerun with these parameters (rmlib book run NAME ...): a rerun gets "
                        "a page of its own, and the book's chapters keep the parameters of `make book`")
    folders = {n: rerun_dir(n, **own) for n in args.names}
    book_names = [n for n, folder in folders.items() if folder is None]
    if args.estimate:  # each rerun judged in its own folder, as it would run (#62: the book's page was looked at)
        if book_names or not args.names:
            run_chapters(book_names or None, force=args.force, estimate_only=True, **own)
        for name, folder in folders.items():
            if folder is not None:
                run_chapters([name], force=args.force, estimate_only=True, output_dir=folder, **own)
        return 0
    if book_names or not args.names:
        for r in run_chapters(book_names or None, keep_going=True, force=args.force, **own):
            if args.names:
                print(f"[book] page (after `rmlib book html`): {_page(r.path)}")
    for name, folder in folders.items():
        if folder is None:
            continue
        (r,) = run_chapters([name], keep_going=True, force=args.force, output_dir=folder, **own)
        if r.ran:
            mark_rerun(r.path, name, changed_parameters(name, **own))
        print(f"[book] {name} with parameters of its own: {r.path.relative_to(ROOT)}; the book's own page is "
              f"unchanged. Page (after `rmlib book html`): {_page(r.path)}")
    return 0


def _page(notebook) -> str:
    return f"_build/html/{notebook.relative_to(ROOT).with_suffix('.html')}"


def _html(args: argparse.Namespace) -> int:
    html = build_html(out=args.out, force=args.force)
    print(f"[book] HTML in {html}/index.html")
    return 0


def _course(args: argparse.Namespace) -> int:
    written = build_course(args.out, args.names or None, force=args.force)
    for edition, paths in written.items():
        print(f"[course] {len(paths)} {edition} notebooks in {paths[0].parent if paths else args.out}")
    print("[course] open them with `make lab COURSE=student` (or COURSE=instructor)")
    return 0


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Register `book vendor`, `book run` and `book html` on an argparse subparsers object."""
    book = subparsers.add_parser("book", help="run the book's chapters (only the stale ones) and build its HTML")
    sub = book.add_subparsers(dest="book_command", required=True)
    sub.add_parser("vendor", help="write the offline JS into book/_static/vendor").set_defaults(func=_vendor)
    r = sub.add_parser("run", help="execute chapters with papermill (only the stale ones)")
    r.add_argument("names", nargs="*", help="chapter names (default: every chapter in _toc.yml)")
    r.add_argument("--params", help="YAML file of parameter values (applied after the chapter's params.yaml)")
    r.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("KEY", "VALUE"),
                   help="one parameter; VALUE is parsed as YAML, e.g. -p MODELS '[\"org/model\"]'")
    r.add_argument("--tiny", action="store_true", help="use the template's tiny defaults (as the tests do)")
    r.add_argument("--force", action="store_true", help="rerun even if the stamp is current")
    r.add_argument("--estimate", action="store_true", help="say which chapters would run and how long they would "
                                                           "take on this machine; run nothing")
    r.set_defaults(func=_run)
    c = sub.add_parser("course", help="write the course's student and instructor notebooks (solutions stripped "
                                      "from the student's)")
    c.add_argument("names", nargs="*", help="chapters (default: every chapter with exercises)")
    c.add_argument("--out", default=str(COURSE_DIR), help="where to write student/ and instructor/ "
                                                          "(default: _build/course)")
    c.add_argument("--force", action="store_true", help="overwrite notebooks changed since they were built "
                                                        "(a student's work): without it they are kept")
    c.set_defaults(func=_course)
    h = sub.add_parser("html", help="build the HTML from book/_executed (skipped when nothing changed)")
    h.add_argument("--out", default=None, help="folder to hold _build/ (default: the repository root)")
    h.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    h.set_defaults(func=_html)
    return book
