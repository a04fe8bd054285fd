"""``python -m rmlib.book``: what the Makefile calls.

    python -m rmlib.book vendor
    python -m rmlib.book run [NAME ...] [--params FILE] [-p KEY VALUE ...] [--force] [--tiny]
    python -m rmlib.book html [--out DIR]
"""
from __future__ import annotations

import argparse
import sys

import yaml

from rmlib.book.chapters import ROOT, BookError
from rmlib.book.html import build_html
from rmlib.book.runner import run_chapters
from rmlib.book.vendor import write_vendor

__all__ = ["main"]


def _parse_overrides(pairs: list[list[str]] | None) -> dict:
    out = {}
    for key, value in pairs or []:
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError as e:
            raise BookError(f"-p {key} {value!r}: not a YAML value ({e}); quote lists like '[\"a\", \"b\"]'") from None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rmlib.book", description="Run the book's chapters and build its HTML.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("vendor", help="write the offline JS into book/_static/vendor")
    r = sub.add_parser("run", help="execute chapters with papermill (only the stale ones)")
    r.add_argument("names", nargs="*", help="chapter names (default: every chapter in _toc.yml)")
    r.add_argument("--params", help="YAML file of parameter values (applied after notebooks/params/<name>.yaml)")
    r.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("KEY", "VALUE"),
                   help="one parameter; VALUE is parsed as YAML, e.g. -p MODELS '[\"org/model\"]'")
    r.add_argument("--tiny", action="store_true", help="use the template's tiny defaults (as the tests do)")
    r.add_argument("--force", action="store_true", help="rerun even if the stamp is current")
    h = sub.add_parser("html", help="build the HTML from book/_executed (skipped when nothing changed)")
    h.add_argument("--out", default=None, help="folder to hold _build/ (default: the repository root)")
    h.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "vendor":
            for p in write_vendor():
                print(f"[book] {p.relative_to(ROOT)}")
        elif args.cmd == "run":
            run_chapters(args.names or None, keep_going=True, tiny=args.tiny, params_file=args.params,
                         overrides=_parse_overrides(args.parameter), force=args.force)
        elif args.cmd == "html":
            html = build_html(out=args.out, force=args.force)
            print(f"[book] HTML in {html}/index.html")
    except BookError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
