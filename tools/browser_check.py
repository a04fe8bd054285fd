#!/usr/bin/env python3
"""Open a built book page in headless Chromium from file:// (no network) and check that its charts drew.

Usage: python tools/browser_check.py _build/html/book/_executed/about.html [--budget-ms 20000]

Installs Debian's `chromium` with apt-get when it is missing (as root). Passes when every
`rmlib-chart` container holds a Vega-drawn <svg> (or <canvas>) with marks; it also reports
whether saved widgets and MathJax rendered. Exit status 0 = pass, 1 = a chart did not draw,
2 = set-up problem (no page, no browser).
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


def check(dom: str) -> dict:
    """Count chart containers and those that hold drawn Vega marks."""
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
    return {
        "charts": len(starts),
        "drawn": drawn,
        "failed": failed,
        "widgets": len(re.findall(r'class="lm-Widget[^"]*\bjupyter-widgets\b', dom)),
        "math": dom.count("<mjx-container"),
        "sliders": len(re.findall(r'<input[^>]*type="range"', dom)),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page", type=Path)
    ap.add_argument("--budget-ms", type=int, default=20000, help="Chromium virtual-time budget")
    args = ap.parse_args()
    if not args.page.is_file():
        print(f"error: {args.page} not found; build the book first (make book)", file=sys.stderr)
        return 2
    browser = find_browser() or install_chromium()
    version = subprocess.run([browser, "--version"], capture_output=True, text=True).stdout.strip()
    res = check(dump_dom(browser, args.page, args.budget_ms))
    print(f"[browser-check] {version}; {args.page}: {res['drawn']}/{res['charts']} charts drawn, "
          f"{res['sliders']} sliders, {res['widgets']} widget views, {res['math']} math formulas rendered")
    for f in res["failed"]:
        print(f"[browser-check] chart not drawn: {f}")
    ok = res["charts"] > 0 and res["drawn"] == res["charts"]
    print("[browser-check] PASS" if ok else "[browser-check] FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
