#!/usr/bin/env python3
"""Open built book pages in headless Chromium from file:// (no network) and judge each by what it should contain.

Usage: python tools/browser_check.py _build/html/book/_executed/about.html [more pages ...] [--width 1280]
       python tools/browser_check.py _build/html --width 1280 --width 390   # a laptop's and a phone's width
       python tools/browser_check.py _build/html                # every page of a built book
       python tools/browser_check.py _build/html --screenshots shots/   # also a screenshot of each page's top and
                                                                        # of one screen down
       python tools/browser_check.py --ensure-browser           # only install Chromium if it is missing

Chromium is Debian's `chromium` (installed with apt-get when it is missing, as root), driven by Playwright (pinned in
environment.yml) with a viewport ``--width`` px wide (default 1280, a laptop). A page passes when:
- every `rmlib-chart` container holds a Vega-drawn <svg> (or <canvas>) with marks (a page without charts, such as
  the intro or the claims page, has nothing to draw and is not failed for it);
- every formula the page's source marks as math was rendered by MathJax;
- it shows no library debris: trainer log dicts, progress bars, Python warnings, Path reprs, or the building
  machine's absolute paths;
- nothing in its text column reaches beyond the column's right edge, unless it sits in a box that scrolls
  sideways (the book's tables, equations and code do), and the page itself does not scroll sideways;
- no chart is wider than the text column, in a scrolling box or not (the book's CSS scales a Vega SVG down to
  the column, legend included).
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


# Chromium's flags on a closed network: without the background-networking ones it keeps trying to reach Google
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--allow-file-access-from-files", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-quic"]

# Everything in the text column that ends beyond its right edge and is not inside a box that scrolls or clips
# sideways; only the outermost such element is reported.
TABLE_MIN_VIEWPORT = 1024  # from this window width up, a table must fit the column whole (scrolling box or not)
_OVERFLOW_JS = """() => {
  const column = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const edge = column.getBoundingClientRect().right + 1;
  const boxed = (el) => {
    for (let a = el.parentElement; a && a !== column; a = a.parentElement) {
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true;
    }
    return false;
  };
  const over = new Set();
  for (const el of column.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > edge && !boxed(el)) over.add(el);
  }
  const outermost = [...over].filter((el) => !over.has(el.parentElement));
  // a chart is judged whole, scrolling box or not: a legend scrolled out of sight is as lost as one cut off
  const width = column.getBoundingClientRect().width;
  const charts = [...column.querySelectorAll('.rmlib-chart svg.marks, .rmlib-chart canvas.marks')]
      .map((el) => Math.round(el.getBoundingClientRect().width - width)).filter((px) => px > 1);
  // at a desktop width a table is judged whole too (#43 item 3): its content may not be wider than its box (a notebook
  // output's box is narrower than the column) nor its box than the column, so that no column (a claims page's reason,
  // a verdict) is scrolled out of sight; on a phone a table may scroll in its box
  const tables = window.innerWidth < TABLE_MIN_VIEWPORT ? [] : [...column.querySelectorAll('table')]
      .map((el) => ({px: Math.round(Math.max(el.scrollWidth - el.clientWidth,
                                             el.getBoundingClientRect().width - width)),
                     text: (el.querySelector('th, td') ? [...el.querySelectorAll('thead th, tr:first-child th')]
                         .map((h) => h.innerText.trim()).filter(Boolean).slice(0, 4).join(' | ') : '').slice(0, 60)}))
      .filter((t) => t.px > 1);
  const name = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ?
      '.' + el.className.trim().split(/\\s+/).join('.') : '');
  return {page_width: (document.scrollingElement || document.documentElement).scrollWidth, viewport: window.innerWidth,
          charts: charts, tables: tables,
          elements: outermost.slice(0, 5).map((el) => ({element: name(el),
              px: Math.round(el.getBoundingClientRect().right - edge),
              text: (el.innerText || el.textContent || '').trim().slice(0, 60)}))};
}""".replace("TABLE_MIN_VIEWPORT", str(TABLE_MIN_VIEWPORT))

# Wait until every chart has drawn or failed, and MathJax has typeset (or there is none).
_SETTLED_JS = """() => {
  const charts = [...document.querySelectorAll('.rmlib-chart')];
  const drawn = charts.every((c) => c.querySelector('svg.marks, canvas.marks, .rmlib-chart-error'));
  const mj = window.MathJax;
  const typeset = !document.querySelector('.math') || (mj && mj.startup && mj.startup.document &&
      document.querySelectorAll('mjx-container').length > 0);
  return drawn && typeset;
}"""


def settle(tab, budget_ms: int) -> None:
    """Wait until the tab's charts have drawn and its math is typeset (or ``budget_ms`` has passed), then a little
    for widgets and late layout."""
    try:
        tab.wait_for_function(_SETTLED_JS, timeout=budget_ms)
    except Exception:  # noqa: BLE001 - a chart that never draws is judged by check(), not here
        pass
    tab.wait_for_timeout(300)  # widgets and late layout


class Browser:
    """Headless Chromium through Playwright, one page at a time, at a viewport ``width`` px wide."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900):
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            sys.exit("error: Playwright is not installed; it is pinned in environment.yml (make venv)")
        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        self.width, self.height = width, height
        self.version = self._browser.version

    def open(self, page: Path, budget_ms: int, width: int | None = None):
        """A tab with ``page`` loaded at ``width`` px (the browser's own width by default), its charts drawn."""
        tab = self._browser.new_page(viewport={"width": width or self.width, "height": self.height})
        try:
            tab.goto(page.resolve().as_uri(), wait_until="load", timeout=max(budget_ms, 30000))
        except BaseException:
            tab.close()
            raise
        settle(tab, budget_ms)
        return tab

    def close(self) -> None:
        self._browser.close()
        self._pw.stop()


def wide_tables(layout: dict) -> list[str]:
    """The tables whose content is wider than the text column at a desktop width (measured from
    ``TABLE_MIN_VIEWPORT`` px up), scrolling box or not: a failure, or a note with ``--lenient-tables`` (#43 item 3:
    a column scrolled out of sight is as lost as one cut off)."""
    return [f"a table wider than the text column by {t['px']} px (columns scroll out of sight): {t['text']!r}"
            for t in layout.get("tables", [])]


def layout_problems(layout: dict, strict_tables: bool = True) -> list[str]:
    """Why a page's layout fails at this width: the page scrolls sideways, content reaches past the column, or (unless
    ``strict_tables`` is off) a table is wider than the column, in its scrolling box or not."""
    out = []
    if layout["page_width"] > layout["viewport"] + 1:
        out.append(f"the page scrolls sideways: {layout['page_width']} px wide in a {layout['viewport']} px window")
    out += [f"beyond the text column by {e['px']} px: <{e['element']}> {e['text']!r}" for e in layout["elements"]]
    out += [f"a chart wider than the text column by {px} px (its legend or axis scrolls out of sight)"
            for px in layout.get("charts", [])]
    return out + (wide_tables(layout) if strict_tables else [])


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


def problems(res: dict, strict_tables: bool = True) -> list[str]:
    """Why a page fails, judged by what it should contain (and, when measured, its layout); empty when it
    passes."""
    out = [f"chart not drawn: {f}" for f in res["failed"]]
    if res["charts"] != res["drawn"] and not res["failed"]:
        out.append(f"{res['charts'] - res['drawn']} chart(s) not drawn")
    if res["math_marked"] and res["math"] < res["math_marked"]:
        out.append(f"math not rendered: {res['math']} of {res['math_marked']} formulas")
    out += res["debris"]
    out += layout_problems(res["layout"], strict_tables) if "layout" in res else []
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


_REFRESH = re.compile(r'<meta\s+http-equiv="refresh"\s+content="\d+;\s*url=([^"]+)"', re.I)


def redirect_target(page: Path) -> Path | None:
    """The page a redirect page (``<meta http-equiv="Refresh" ...>``, the book's index.html) sends the reader to;
    None for a page with content. A browser would leave such a page before it could be measured."""
    head = page.read_text(encoding="utf-8", errors="replace")[:2000]
    m = _REFRESH.search(head)
    return (page.parent / m.group(1)).resolve() if m else None


def _measure(tab) -> dict:
    """What :func:`check` finds in ``tab`` as it is now, with its layout."""
    res = check(tab.content())
    res["layout"] = tab.evaluate(_OVERFLOW_JS)
    return res


def _screenshots(browser: Browser, tab, page: Path, folder: Path, suffix: str) -> None:
    """``<page><suffix>-top.png`` and ``<page><suffix>-down.png`` (one screen further) of the tab, into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(folder / f"{page.stem}{suffix}-top.png"))
    tab.evaluate(f"window.scrollBy(0, {browser.height})")
    tab.wait_for_timeout(200)
    tab.screenshot(path=str(folder / f"{page.stem}{suffix}-down.png"))
    tab.evaluate("window.scrollTo(0, 0)")


def _look_at(browser: Browser, page: Path, widths: list[int], budget_ms: int, screenshots: Path | None) -> dict:
    """What :func:`check` finds on ``page`` at each of ``widths``, with its layout: loaded once at the first width,
    then the window resized to each next one, where the page's CSS and charts lay out again (loading it anew at
    each width measures the same: ``tests/chapters/test_book.py``, and it cost a second load and drawing of every
    chart). The tab is closed whatever happens."""
    tab = browser.open(page, budget_ms, width=widths[0])
    found = {}
    try:
        for i, width in enumerate(widths):
            if i:
                tab.set_viewport_size({"width": width, "height": browser.height})
                settle(tab, budget_ms)
            found[width] = _measure(tab)
            if screenshots is not None:
                _screenshots(browser, tab, page, screenshots, f"-{width}" if len(widths) > 1 else "")
    finally:
        tab.close()
    return found


def check_pages(todo: list[Path], *, width: int = 1280, budget_ms: int = 20000, screenshots: Path | None = None,
                strict_tables: bool = True, log=print) -> dict[Path, list[str]]:
    """Open each page at ``width`` px and return its problems (:func:`problems`); with ``screenshots``, save
    ``<page>-top.png`` and ``<page>-down.png`` (one screen further) of each page there. Tables wider than the column
    fail a page, or are logged as notes when ``strict_tables`` is off."""
    return check_pages_at(todo, [width], budget_ms=budget_ms, screenshots=screenshots, strict_tables=strict_tables,
                          log=log)[width]


def check_pages_at(todo: list[Path], widths: list[int], *, budget_ms: int = 20000, screenshots: Path | None = None,
                   strict_tables: bool = True, log=print) -> dict[int, dict[Path, list[str]]]:
    """:func:`check_pages` at several window widths, each page loaded once (at the first width) and resized to the
    others: ``{width: {page: problems}}``. Screenshots are named ``<page>-<width>-top.png`` when there are several
    widths."""
    browser = None  # started at the first page that needs it
    found = {w: {} for w in widths}
    try:
        for page in todo:
            target = redirect_target(page)
            if target is not None:  # Jupyter Book's index.html only sends the reader on to the first page
                bad = [] if target.is_file() else [f"redirects to a missing page: {target}"]
                for w in widths:
                    found[w][page] = bad
                log(f"[browser-check] {'FAIL' if bad else 'PASS'} {page}: a redirect to {target.name}")
                continue
            if browser is None:
                browser = Browser(find_browser() or install_chromium(), width=widths[0])
                log(f"[browser-check] Chromium {browser.version}, {' and '.join(map(str, widths))} px wide")
            try:
                measured = _look_at(browser, page, widths, budget_ms, screenshots)
            except Exception as exc:  # noqa: BLE001 - a page that does not load or answer fails alone; the run goes on
                why = [f"could not be checked: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}"]
                for w in widths:
                    found[w][page] = why
                log(f"[browser-check] FAIL {page}: {why[0]}")
                continue
            for w, res in measured.items():
                found[w][page] = bad = problems(res, strict_tables)
                log(f"[browser-check] {'FAIL' if bad else 'PASS'} {page} at {w} px: {res['drawn']}/{res['charts']} "
                    f"charts drawn, {res['sliders']} sliders, {res['widgets']} widget views, {res['math']} math "
                    "formulas rendered")
                for b in bad:
                    log(f"[browser-check]   {b}")
                if not strict_tables:
                    for note in wide_tables(res.get("layout", {})):
                        log(f"[browser-check]   note: {note}")
    finally:
        if browser is not None:
            browser.close()
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page", type=Path, nargs="*")
    ap.add_argument("--all", action="store_true", help="check every page under the given folder(s)")
    ap.add_argument("--width", type=int, action="append",
                    help="the window's width in px (default 1280, a laptop); give it again for more widths (each page "
                         "is loaded once and resized)")
    ap.add_argument("--budget-ms", type=int, default=20000, help="how long a page may take to draw")
    ap.add_argument("--screenshots", type=Path, help="save each page's top and one screen down here")
    ap.add_argument("--lenient-tables", action="store_true",
                    help=f"note a table wider than the text column (from {TABLE_MIN_VIEWPORT} px up) instead of "
                         "failing its page")
    ap.add_argument("--ensure-browser", action="store_true", help="install Chromium if it is missing, then stop")
    args = ap.parse_args()
    if args.ensure_browser:
        print(f"[browser-check] {find_browser() or install_chromium()}")
        return 0
    todo = pages(args.page, args.all)
    missing = [p for p in todo if not p.is_file()]
    if missing or not todo:
        where = missing[0] if missing else (args.page[0] if args.page else "no page given")
        print(f"error: {where} not found; build the book first (make book)", file=sys.stderr)
        return 2
    widths = args.width or [1280]
    found = check_pages_at(todo, widths, budget_ms=args.budget_ms, screenshots=args.screenshots,
                           strict_tables=not args.lenient_tables)
    failed = sum(any(found[w][p] for w in widths) for p in todo)
    print(f"[browser-check] {len(todo) - failed} of {len(todo)} pages pass at {' and '.join(map(str, widths))} px")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
