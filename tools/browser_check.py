#!/usr/bin/env python3
"""Open built book pages in headless Chromium from file:// (no network) and judge each by what it should contain.

Usage: python tools/browser_check.py _build/html/book/_executed/about.html [more pages ...] [--budget-ms 20000]
       python tools/browser_check.py _build/html                # every page of a built book

Installs Debian's `chromium` with apt-get when it is missing (as root). A page passes when:
- every `rmlib-chart` container holds a Vega-drawn <svg> (or <canvas>) with marks (a page without charts, such as
  the intro or the claims page, has nothing to draw and is not failed for it);
- every formula the page's source marks as math was rendered by MathJax;
- it shows no library debris: trainer log dicts, progress bars, Python warnings, Path reprs, or the building
  machine's absolute paths.
Exit status 0 = every page passes, 1 = a page fails, 2 = set-up problem (no page, no browser).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def install_chromium() -> str:
    if os.geteuid() != 0:
        sys.exit("error: chromium is not installed; run `sudo apt-get update && sudo apt-get install -y chromium`")
    print("[browser-check] installing chromium with apt-get", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        if subprocess.run(cmd, env=env).returncode != 0:
            sys.exit(f"error: `{' '.join(cmd)}` failed; install Debian's chromium package by hand")
    path = find_browser()
    if not path:
        sys.exit("error: apt-get installed chromium but no chromium binary is on PATH")
    return path


def dump_dom(browser: str, page: Path, budget_ms: int) -> str:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--allow-file-access-from-files", f"--virtual-time-budget={budget_ms}",
           "--dump-dom", page.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if proc.returncode != 0 or "<html" not in proc.stdout:
        sys.exit(f"error: {browser} failed (rc={proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


# what no page may show (the same kinds as tests/chapters/test_pages_clean.py checks in the executed notebooks)
DEBRIS = [
    ("a trainer log dict", re.compile(r"\{(?:'|&#39;)(?:loss|train_runtime|grad_norm|eval_loss)(?:'|&#39;)")),
    ("a progress bar", re.compile(r"\d+%\|[^|<]*\|\s*\d+/\d+")),
    ("a Python warning", re.compile(r"\b\w+Warning: ")),
    ("a Path's repr", re.compile(r"PosixPath\(|WindowsPath\(")),
    ("an absolute path of the building machine", re.compile(r"(?<![\w/])/(?:root|home|tmp|work)/[\w.-]+/")),
]


def _visible(dom: str) -> str:
    """The page without scripts, styles and the embedded chart specs (which may hold any text)."""
    return re.sub(r"<(script|style)\b.*?</\1>", "", dom, flags=re.S | re.I)


def check(dom: str) -> dict:
    """What the rendered page holds: chart containers and those with drawn Vega marks, math marked in the source
    and rendered, widgets, sliders, and any library debris among the visible text."""
    starts = [m.start() for m in re.finditer(r'<div[^>]*class="[^"]*rmlib-chart', dom)]
    drawn, failed = 0, []
    for i, s in enumerate(starts):
        chunk = dom[s: starts[i + 1] if i + 1 < len(starts) else len(dom)]
        # vega-embed puts an <svg class="marks"> (or <canvas class="marks">) inside the container;
        # the svg renderer also writes one <g class="mark-..."> group per mark.
        if re.search(r'<svg[^>]*class="marks"', chunk) and 'class="mark-' in chunk:
            drawn += 1
        elif re.search(r'<canvas[^>]*class="marks"', chunk):
            drawn += 1
        else:
            err = re.search(r'rmlib-chart-error">([^<]*)', chunk)
            failed.append(err.group(1) if err else chunk[:200])
    visible = _visible(dom)
    debris = []
    for what, pattern in DEBRIS:
        m = pattern.search(visible)
        if m:
            debris.append(f"{what}: ...{visible[max(0, m.start() - 60):m.end() + 60]}...")
    return {
        "charts": len(starts),
        "drawn": drawn,
        "failed": failed,
        "widgets": len(re.findall(r'class="lm-Widget[^"]*\bjupyter-widgets\b', dom)),
        "math_marked": len(re.findall(r'class="[^"]*\bmath\b[^"]*"', dom)),
        "math": dom.count("<mjx-container"),
        "sliders": len(re.findall(r'<input[^>]*type="range"', dom)),
        "debris": debris,
    }


def problems(res: dict) -> list[str]:
    """Why a page fails, judged by what it should contain; empty when it passes."""
    out = [f"chart not drawn: {f}" for f in res["failed"]]
    if res["charts"] != res["drawn"] and not res["failed"]:
        out.append(f"{res['charts'] - res['drawn']} chart(s) not drawn")
    if res["math_marked"] and res["math"] < res["math_marked"]:
        out.append(f"math not rendered: {res['math']} of {res['math_marked']} formulas")
    out += res["debris"]
    return out


def pages(paths: list[Path], every: bool) -> list[Path]:
    """The pages to check: the given files, and every .html page under a given folder (or under every path, with
    ``every``); the book's own pages (search, genindex, the _static folder) are left out."""
    found = []
    for root in paths:
        if not (every or root.is_dir()):
            found.append(root)
            continue
        found += [p for p in sorted(root.rglob("*.html")) if "_static" not in p.parts and "_sources" not in p.parts
                  and p.name not in ("search.html", "genindex.html")]
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page", type=Path, nargs="+")
    ap.add_argument("--all", action="store_true", help="check every page under the given folder(s)")
    ap.add_argument("--budget-ms", type=int, default=20000, help="Chromium virtual-time budget")
    args = ap.parse_args()
    todo = pages(args.page, args.all)
    missing = [p for p in todo if not p.is_file()]
    if missing or not todo:
        print(f"error: {missing[0] if missing else args.page[0]} not found; build the book first (make book)",
              file=sys.stderr)
        return 2
    browser = find_browser() or install_chromium()
    version = subprocess.run([browser, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"[browser-check] {version}")
    failed = 0
    for page in todo:
        res = check(dump_dom(browser, page, args.budget_ms))
        bad = problems(res)
        failed += bool(bad)
        print(f"[browser-check] {'FAIL' if bad else 'PASS'} {page}: {res['drawn']}/{res['charts']} charts drawn, "
              f"{res['sliders']} sliders, {res['widgets']} widget views, {res['math']} math formulas rendered")
        for b in bad:
            print(f"[browser-check]   {b}")
    print(f"[browser-check] {len(todo) - failed} of {len(todo)} pages pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
