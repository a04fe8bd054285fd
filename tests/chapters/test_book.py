"""The book pipeline: the first chapter with tiny parameters in a temporary book, stamps, and the offline HTML."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
import ast
import json
import re
import shutil

import nbformat
import pytest
import yaml

from rmbook import book


# No xdist group here (#61): the fixture's setup on a second worker is no duplicate. It takes the chapters' standard
# runs that no worker is executing yet (tests/chapters/conftest.py), so both workers share them. Kept to one worker,
# it ran them alone (274 s of setup against 164 + 161 s shared), and two clean make tests in one hour took 940 s
# grouped and 930 s not (AMX, 2026-12-07): no gain to pay for the group.

CHAPTER = "about"
EXERCISES = "heterogeneity"  # a chapter with exercises (#27): how the book shows them


def _book_chapters(toc: dict) -> list[str]:
    """The chapters of the book's table of contents, in its order (the pages papermill writes to book/_executed/)."""
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f.rsplit("/", 1)[1] for f in files if f.startswith("book/_executed/")]


# API pages of the tiny book: a docstring with a repository path as one long word (rmlib.data), a pydantic type's
# repr (rmlib.storage.records), a long inline formula (implicit_vs_explicit.charts), an exercise module
API_SAMPLE = ("rmlib.data", "rmlib.storage.records", "rmbook.chapters.implicit_vs_explicit.charts",
              "rmbook.chapters.good_teachers.course")


@pytest.fixture(scope="module")
def tiny_book(chapter):
    """The HTML of the test session's tiny book (tests/chapters/conftest.py): the standard runs of every chapter (the
    suite runs each of them anyway) and the glossary, built where those runs are; an unchanged book is not rebuilt."""
    from rmlib.storage.atomic import file_lock

    toc = yaml.safe_load((book.ROOT / "_toc.yml").read_text())
    names = _book_chapters(toc)
    result, exercises = chapter(CHAPTER), chapter(EXERCISES)
    chapter.standard_runs([n for n in names if n != "claims"])
    tally = chapter("claims")  # the landing page opens with its tally: built last, so the landing is settled
    root = chapter.book_root
    with file_lock(chapter.store / "locks" / "tiny-book.lock"):
        book.write_vendor(log=lambda *_: None)  # npm pack once; cached in book/_static/vendor afterwards
        shutil.copy2(book.ROOT / "_config.yml", root / "_config.yml")  # copy2 keeps mtimes: the build stamp holds
        # the glossary comes along: chapters link their terms to it, and the build treats a broken link as an error
        # and a few API pages, generated as the book's are: the ones whose long words once pushed a phone's page
        # sideways (the module index comes with them)
        tiny_toc = {"format": toc["format"], "root": toc["root"],
                    "chapters": [{"file": f"book/_executed/{n}"} for n in names]
                    + [{"file": "book/glossary"}, {"file": "book/api"}]}
        (root / "_toc.yml").write_text(yaml.safe_dump(tiny_toc))
        shutil.copy2(book.ROOT / (toc["root"] + ".md"), root / (toc["root"] + ".md"))
        shutil.copy2(book.ROOT / "book" / "glossary.md", root / "book" / "glossary.md")
        api = "\n".join(f"   {m}" for m in API_SAMPLE)
        (root / "book" / "api.md").write_text(f"# API sample\n\n```{{eval-rst}}\n.. autosummary::\n   :toctree: api\n\n{api}\n```\n")
        shutil.copytree(book.ROOT / "book" / "_static", root / "book" / "_static", dirs_exist_ok=True)  # css, vendor/
        html = book.build_html(root)
    return {"root": root, "result": result, "exercises": exercises, "html": html, "claims": tally, "chapters": names}


def test_chapter_ran_with_tiny_defaults(tiny_book):
    res = tiny_book["result"]
    assert res.parameters == {}  # tiny: the template's own defaults
    assert book.cell_errors(res.path) == []
    defaults = {k: ast.literal_eval(v) for k, v in book.declared_parameters(CHAPTER).items()}
    g = book.glued(res.path)
    assert int(g["n_items"]) == defaults["N_ITEMS"]
    assert int(g["n_models"]) == len(defaults["MODELS"])
    assert ast.literal_eval(g["corr_shape"]) == (len(defaults["MODELS"]) + 1,) * 2
    for key in ("rho_best", "rho_worst"):
        assert -1.0 <= float(g[key]) <= 1.0
    assert float(g["rho_worst"]) <= float(g["rho_best"])
    assert ast.literal_eval(g["rho_best_model"]) in defaults["MODELS"]


def test_chapter_charts_use_the_page_bundle(tiny_book):
    nb = nbformat.read(tiny_book["result"].path, as_version=4)
    htmls = [o["data"]["text/html"] for c in nb.cells for o in c.get("outputs", [])
             if "text/html" in o.get("data", {})]
    chart_html = [h for h in htmls if 'class="rmlib-chart"' in h]
    assert len(chart_html) == 5  # slope_ci, heatmap, ranked_bar, scatter (+slider), histogram
    for h in chart_html:
        assert "window.vegaEmbed(el, spec, opts)" in h
        assert "vega-lite" in h  # the full spec is embedded
        assert len(h) < 200_000, "in the book the vega bundle must come from _static, not inline"
    assert any('"bind":{"input":"range"' in h or '"input":"range"' in h for h in chart_html)
    assert "application/vnd.jupyter.widget-state+json" in nb.metadata.get("widgets", {})


def test_stamp_skips_unchanged_and_notices_changes(tiny_book):
    out_dir = tiny_book["result"].path.parent
    again = book.run_chapter(CHAPTER, tiny=True, output_dir=out_dir, log=lambda *_: None)
    assert not again.ran
    assert book.stale_reason(CHAPTER, {"TOP_K": 3}, out_dir) == "parameters changed"
    stamp = json.loads(book.stamp_path(CHAPTER, out_dir).read_text())
    ran = sorted(stamp["dependencies"]["source"])  # the source files its kernel ran (rmbook.book.imported)
    assert stamp["hash"] == book.content_hash(CHAPTER, {}, ran)
    assert "rmbook/chapters/elo_misalignment/analysis.py" in ran and "rmbook/chapters/about/prose.md.j2" in ran
    assert "rmlib/storage/records.py" in ran and "rmbook/results.py" in ran
    assert "rmbook/chapters/heterogeneity/analysis.py" not in ran and "rmbook/book/runner.py" not in ran


def test_editing_one_chapters_analysis_makes_only_that_chapter_stale(tiny_book, chapter, tmp_path, monkeypatch):
    """#41: staleness follows what a chapter ran. The book's standard runs, checked against a copy of the package
    with one chapter's files edited: only the chapters whose kernels imported them must run again. The claims page
    reads every source chapter's results through their types alone (each chapter folder's ``types.py``), so it reruns
    only when the results it reads change (the results hashes in its stamp), not when a chapter's code does; it
    gathers every chapter's claims (``claims.py``), so an edit to one claim reruns that chapter and the claims page,
    and nothing else (#64)."""
    from rmbook.chapters.claims import analysis as claims
    from rmbook.book import stamps

    runs = chapter.standard_runs([CHAPTER, *claims.source_chapters(), "claims"])  # run already by tiny_book
    original, copy = stamps.SOURCE_ROOT, tmp_path / "src"
    for package in stamps.PACKAGES:
        shutil.copytree(original / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(stamps, "SOURCE_ROOT", copy)

    def stale() -> dict[str, str]:
        reasons = {n: book.stale_reason(n, r.parameters, r.path.parent) for n, r in runs.items()}
        return {n: why for n, why in reasons.items() if why is not None}

    def edit(relative: str) -> None:
        comment = "{# an edit #}" if relative.endswith(".j2") else "# an edit"
        (copy / relative).write_text((original / relative).read_text() + f"\n{comment}\n")

    def undo(relative: str) -> None:
        shutil.copy2(original / relative, copy / relative)

    assert stale() == {}
    edit("rmbook/chapters/heterogeneity/charts.py")  # heterogeneity's MDS map and heatmaps
    assert stale() == {"heterogeneity": "source changed: rmbook/chapters/heterogeneity/charts.py"}
    undo("rmbook/chapters/heterogeneity/charts.py")
    edit("rmbook/chapters/heterogeneity/course.py")  # its exercises' checks: no other chapter's page runs them
    assert stale() == {"heterogeneity": "source changed: rmbook/chapters/heterogeneity/course.py"}
    undo("rmbook/chapters/heterogeneity/course.py")
    edit("rmbook/chapters/framing/params.yaml")  # another chapter's full-run values: not what these runs used
    assert stale() == {}
    undo("rmbook/chapters/framing/params.yaml")
    edit("rmbook/chapters/heterogeneity/prose.md.j2")  # its sentences
    assert stale() == {"heterogeneity": "source changed: rmbook/chapters/heterogeneity/prose.md.j2"}
    undo("rmbook/chapters/heterogeneity/prose.md.j2")
    assert stale() == {}
    for claim in ("rmbook/chapters/heterogeneity/claims.py", "rmbook/chapters/heterogeneity/claims.md.j2"):
        edit(claim)  # one chapter's claim or its evidence sentences (#64): its brief and the claims page judge it
        assert stale() == {"heterogeneity": f"source changed: {claim}", "claims": f"source changed: {claim}"}
        undo(claim)
    edit("rmbook/analysis/claims/rules.py")  # the rules every claim is judged by: every chapter that holds one
    assert set(stale()) == {*claims.claimed_chapters(), "claims"} & set(runs)
    undo("rmbook/analysis/claims/rules.py")
    edit("rmbook/chapters/heterogeneity/analysis.py")
    assert stale() == {"heterogeneity": "source changed: rmbook/chapters/heterogeneity/analysis.py"}
    edit("rmbook/chapters/heterogeneity/types.py")  # the results type the claims page reads
    assert set(stale()) == {"heterogeneity", "claims"}
    edit("rmlib/storage/records.py")  # every chapter writes (and the claims page reads) results through it
    assert set(stale()) == set(runs)


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.refs.append((tag, a["src"]))
        if tag == "link" and a.get("href"):
            self.refs.append((tag, a["href"]))


def test_html_has_no_errors_and_loads_nothing_from_outside(tiny_book):
    html_dir: Path = tiny_book["html"]
    pages = sorted(html_dir.rglob("*.html"))
    page = html_dir / "book" / "_executed" / f"{CHAPTER}.html"
    assert page in pages
    for p in pages:
        text = p.read_text(encoding="utf-8")
        parser = _Refs()
        parser.feed(text)
        outside = [r for r in parser.refs if re.match(r"\s*(https?:)?//", r[1])]
        assert outside == [], f"{p.relative_to(html_dir)} loads {outside}"
        assert "output traceback" not in text and "output error" not in text, p
        assert not re.search(r"\bename\b", text), p
    text = page.read_text(encoding="utf-8")
    assert text.count('class="rmlib-chart"') == 5
    g = book.glued(tiny_book["result"].path)
    assert f"uses {g['n_items']} items" in re.sub(r"<[^>]+>|\s+", lambda m: " " if m.group().isspace() else "", text)
    for rel in book.PAGE_JS:
        assert f'src="../../_static/vendor/{rel}' in text
        assert (html_dir / "_static" / "vendor" / rel).is_file()
    assert 'src="../../_static/vendor/mathjax/tex-svg.js' in text  # the page has math
    assert 'href="../../_static/rmlib.css' in text


def test_the_landing_page_opens_with_the_claims_tally_and_a_chart_not_the_api_list(tiny_book):
    """#43 item 1: a reader meets a result first; the 190 API modules are on the API page, not the landing page."""
    import pandas as pd

    text = (tiny_book["html"] / "book" / "intro.html").read_text(encoding="utf-8")
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text))
    verdicts = pd.Series([r["verdict"] for r in tiny_book["claims"].results["rows"]]).value_counts()
    assert f"What replicates. Of {verdicts.sum()} claims: " in words
    for verdict, n in verdicts.items():
        assert f"{n} {verdict}" in words
    assert words.index("What replicates. Of") < words.index("This book reproduces")
    assert text.count('class="rmlib-chart"') == 1 and 'id="rmlib-vis-landing"' in text
    assert "rmlib.storage.atomic" not in text  # no recursive list of modules


def test_unchanged_book_is_not_rebuilt(tiny_book, chapter):
    """Under the fixture's lock: the other xdist worker's setup of ``tiny_book`` builds the same folder while holding
    it, and an unlocked build here once ran beside it (Sphinx's search index moved away under it: a clean make test
    at ba194a5 failed so)."""
    from rmlib.storage.atomic import file_lock

    page = tiny_book["html"] / "book" / "_executed" / f"{CHAPTER}.html"
    with file_lock(chapter.store / "locks" / "tiny-book.lock"):
        before = page.stat().st_mtime_ns
        assert book.build_html(tiny_book["root"]) == tiny_book["html"]
        assert page.stat().st_mtime_ns == before


def test_page_shows_the_parameters_once_as_a_table(tiny_book):
    nb = nbformat.read(tiny_book["result"].path, as_version=4)
    raw = [c for c in nb.cells if {"parameters", "injected-parameters"} & set(c.metadata.get("tags", []))]
    assert raw and all("remove-cell" in c.metadata["tags"] for c in raw)  # kept in the notebook, hidden on the page
    text = (tiny_book["html"] / "book" / "_executed" / f"{CHAPTER}.html").read_text(encoding="utf-8")
    assert text.count("Parameters of this run") == 1
    # collapsed (sphinx-togglebutton opens it), so the chapter's content comes first
    box = text[:text.index("Parameters of this run")].rsplit("<div", 1)[1]
    assert 'class="dropdown admonition"' in box and "what it is" in text
    assert "PROMPT_KEY = " not in text  # no raw parameters cell


def test_an_exercise_shows_its_task_and_check_with_the_solution_folded_and_no_stub(tiny_book):
    """#27: on the page each exercise is its task, the solution folded behind "Show the solution" (not myst-nb's
    "Show code cell source"), and the check's verdict without its code; the stub, a student's starting point, is not
    on the page at all, nor are the solution's nbgrader markers (#41 item 5)."""
    import html as html_lib

    from rmbook.book.course import check_exercises, exercise_cells
    from rmbook.course import catalogue

    nb = json.loads(tiny_book["exercises"].path.read_text())
    ids = check_exercises(book.chapter(EXERCISES).cells(), EXERCISES)  # the template's cells, markers and all
    assert len(ids) >= 2
    text = (tiny_book["html"] / "book" / "_executed" / f"{EXERCISES}.html").read_text(encoding="utf-8")
    plain = html_lib.unescape(re.sub(r"<[^>]+>", "", text)).replace("’", "'")  # Sphinx curls the quotes
    assert plain.count("Show the solution") == len(ids) and "Show code cell source" in plain  # other cells: default
    assert "BEGIN SOLUTION" not in plain and "END SOLUTION" not in plain and "NotImplementedError" not in plain
    cells = nb["cells"]
    for i, ex, role in exercise_cells(nb):
        source = "".join(cells[i]["source"])
        if role == "task":
            assert catalogue()[ex].title in plain and catalogue()[ex].label().strip("*") in plain
        elif role == "solution":
            name = source.split("def ", 1)[1].split("(", 1)[0]
            fold = text[:text.index(f'<span class="nf">{name}</span>')].rsplit("<details", 1)[1]
            assert "Show the solution" in fold and "</details>" not in fold  # the solution sits inside its fold
        elif role == "check":
            assert f'check("{ex}"' not in plain  # its code is not shown
    assert plain.count("✓") == len(ids)  # and each check's verdict is


def test_a_chapter_run_prints_no_kernel_transport_warning(tmp_path, capfd):
    """ipykernel warned 'Kernel is running over TCP without encryption' once per chapter in the make book log;
    the runner now talks to the kernel over private Unix sockets, which it cleans up."""
    result = book.run_chapter(CHAPTER, tiny=True, output_dir=tmp_path, force=True, log=lambda *_: None)
    captured = capfd.readouterr()
    assert result.path.exists() and result.ran
    assert "without encryption" not in captured.err + captured.out
    assert not [p for p in tmp_path.rglob("kernel-*")], "IPC sockets are left behind"


def _browser_check_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("browser_check", book.ROOT / "tools" / "browser_check.py")
    bc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bc)
    return bc


def test_every_page_of_the_tiny_book_passes_the_browser_check_at_a_laptops_and_a_phones_width(tiny_book):
    """#28 item 7: headless Chromium opens every built page at 1280 px. Charts must draw, math render, no debris
    show, and nothing may reach beyond the text column outside a box that scrolls sideways. #43 item 3: at a phone's
    390 px too, where a long inline module path used to push the page sideways; and every chapter's page, where at
    1280 px ten tables were wider than the column (in their scrolling boxes, which the check now fails). One test
    for both widths (#61): each page is loaded once and resized."""
    bc = _browser_check_module()
    by_width = bc.check_pages_at(bc.pages([tiny_book["html"]], every=True), [1280, 390], log=lambda *_: None)
    assert len(tiny_book["chapters"]) >= 17 and "value_cards" in tiny_book["chapters"]
    for width, found in by_width.items():
        names = {p.relative_to(tiny_book["html"]).as_posix() for p in found}
        assert {f"book/_executed/{n}.html" for n in tiny_book["chapters"]} | {"book/glossary.html"} <= names, width
        assert {f"book/api/{m}.html" for m in API_SAMPLE} | {"py-modindex.html"} <= names, width
        assert {p.name: bad for p, bad in found.items() if bad} == {}, width


def test_a_page_resized_to_a_phones_width_measures_as_one_loaded_at_it(tiny_book):
    """The browser check loads each page once, at 1280 px, and resizes it to 390 px (#61: a second load drew every
    chart again). A chapter page with charts and tables, and an API page with long module paths, measure the same
    either way: the same charts drawn, the same elements past the column, the same page width."""
    bc = _browser_check_module()
    browser = bc.Browser(bc.find_browser() or bc.install_chromium(), width=390)
    try:
        for page in (tiny_book["html"] / "book" / "_executed" / "framing.html",
                     tiny_book["html"] / "book" / "api" / f"{API_SAMPLE[0]}.html"):
            tab = browser.open(page, 20000)
            try:
                loaded = bc._measure(tab)
            finally:
                tab.close()
            resized = bc._look_at(browser, page, [1280, 390], 20000, None)[390]
            assert loaded["charts"] > 0 or "api" in page.parts
            assert resized == loaded, page.name
    finally:
        browser.close()
