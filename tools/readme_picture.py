#!/usr/bin/env python3
"""Write the README's pictures: one chart of an executed chapter or of a value card, as a PNG, drawn by Vega
offline (vl-convert).

The picture is a real chart from a full-parameter run, not a drawing: it takes the chart's Vega-Lite spec from the
executed notebook's output and renders it, so re-running this after a `make book` refreshes it with the same code
that drew the page.

    python tools/readme_picture.py book/_executed/big_two.ipynb --chart 1 --out book/_static/readme/big_two.png
    python tools/readme_picture.py book/_executed/big_two.ipynb --list     # every chart's number and title
    python tools/readme_picture.py _build/cards/smollm2-135m-instruct/card.html --out book/_static/readme/card.png
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SPEC_START = "var spec = "


def _pages(path: Path) -> list[str]:
    """The HTML a file shows: an executed notebook's HTML outputs in page order, or an HTML page (a value card)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        return [text]
    return ["".join(out.get("data", {}).get("text/html", "")) for cell in json.loads(text)["cells"]
            for out in cell.get("outputs", [])]


def chart_specs(path: Path) -> list[dict]:
    """The Vega-Lite spec of every chart an executed notebook (or an HTML page) shows, in page order."""
    specs = []
    for html in _pages(path):
        while SPEC_START in html:
            html = html.split(SPEC_START, 1)[1]
            text, html = html.split(";\n", 1)
            specs.append(json.loads(text))
    return specs


def _title(spec: dict) -> str:
    t = spec.get("title", "")
    return t.get("text", "") if isinstance(t, dict) else str(t)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path, help="an executed notebook, or an HTML page such as a card.html")
    parser.add_argument("--chart", type=int, default=1, help="which chart, counted from 1 in page order")
    parser.add_argument("--out", type=Path, default=Path("book/_static/readme/chart.png"))
    parser.add_argument("--scale", type=float, default=2.0, help="pixels per CSS pixel (2: sharp on any screen)")
    parser.add_argument("--list", action="store_true", help="list the charts and exit")
    args = parser.parse_args(argv)
    specs = chart_specs(args.notebook)
    if args.list:
        for i, spec in enumerate(specs, 1):
            print(f"{i}: {_title(spec) or '(untitled)'}")
        return 0
    if not 1 <= args.chart <= len(specs):
        print(f"{args.notebook} shows {len(specs)} charts; --chart must be 1 to {len(specs)}", file=sys.stderr)
        return 2
    import vl_convert

    png = vl_convert.vegalite_to_png(specs[args.chart - 1], scale=args.scale)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(png)
    print(f"wrote {args.out} ({len(png):,} bytes): chart {args.chart}, {_title(specs[args.chart - 1])!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
