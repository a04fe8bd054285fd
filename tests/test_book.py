"""The book pipeline: papermill runs with tiny parameters, the offline HTML build, and the chart functions.

One module-scoped fixture runs the first chapter (notebooks/about.ipynb) with its tiny defaults into a
temporary copy of the book and builds the HTML there (~15 s), so the real book/_executed is untouched.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
import yaml

from rmlib import book
from rmlib.report import charts, top_bottom_table
from rmlib.report.charts import render

CHAPTER = "about"


# --------------------------------------------------------------------------- fixture: a tiny book

@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    root = tmp_path_factory.mktemp("book")
    book.write_vendor(log=lambda *_: None)  # npm pack once; cached in book/_static/vendor afterwards
    shutil.copy(book.ROOT / "_config.yml", root / "_config.yml")
    toc = yaml.safe_load((book.ROOT / "_toc.yml").read_text())
    tiny_toc = {"format": toc["format"], "root": toc["root"], "chapters": [{"file": f"book/_executed/{CHAPTER}"}]}
    (root / "_toc.yml").write_text(yaml.safe_dump(tiny_toc))
    (root / "book").mkdir()
    shutil.copy(book.ROOT / (toc["root"] + ".md"), root / (toc["root"] + ".md"))
    shutil.copytree(book.ROOT / "book" / "_static", root / "book" / "_static")  # rmlib.css + vendor/
    result = book.run_chapter(CHAPTER, tiny=True, output_dir=root / "book" / "_executed", log=lambda *_: None)
    html = book.build_html(root)
    return {"root": root, "result": result, "html": html}


# --------------------------------------------------------------------------- the executed notebook

def test_chapter_ran_with_tiny_defaults(tiny_book):
    res = tiny_book["result"]
    assert res.ran and res.parameters == {}  # tiny: the template's own defaults
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
    assert stamp["hash"] == book.content_hash(CHAPTER, {})


def test_unknown_parameter_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("MODLES: [x]\n")
    with pytest.raises(book.BookError, match="MODLES"):
        book.parameters(CHAPTER, params_file=bad)
    with pytest.raises(book.BookError, match="no notebook template"):
        book.parameters("no_such_chapter")


def test_full_run_parameter_files_match_their_templates():
    names = book.chapters()
    assert CHAPTER in names
    for name in names:
        assert book.template(name).is_file()
        book.parameters(name)  # raises on keys that the parameters cell does not declare


# --------------------------------------------------------------------------- the built HTML

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


def test_unchanged_book_is_not_rebuilt(tiny_book):
    page = tiny_book["html"] / "book" / "_executed" / f"{CHAPTER}.html"
    before = page.stat().st_mtime_ns
    assert book.build_html(tiny_book["root"]) == tiny_book["html"]
    assert page.stat().st_mtime_ns == before


def test_config_lists_each_page_script_once():
    cfg = yaml.safe_load((book.ROOT / "_config.yml").read_text())
    sphinx = cfg["sphinx"]["config"]
    assert sphinx["html_js_files"] == [f"vendor/{f}" for f in book.PAGE_JS]
    assert book.PAGE_JS[0] == book.VEGA_BUNDLE == charts.BUNDLE_NAME
    assert sphinx["nb_ipywidgets_js"] == {}
    assert cfg["execute"]["execute_notebooks"] == "off"
    # Jupyter Book auto-adds every .js under <root>/_static; ours is under book/_static so nothing doubles.
    assert not (book.ROOT / "_static").exists()


# --------------------------------------------------------------------------- chart functions

@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"token": [f"t{i}" for i in range(200)], "score": rng.normal(size=200),
                         "model": np.repeat(["a", "b"], 100)})


def test_top_bottom_is_sorted_both_ways(scores):
    t = top_bottom_table(scores, "token", "score", k=4)
    assert list(t.columns) == ["rank", "top token", "top score", "bottom token", "bottom score"]
    assert list(t["top score"]) == sorted(scores["score"].nlargest(4), reverse=True)
    assert list(t["bottom score"]) == sorted(scores["score"].nsmallest(4))
    with pytest.raises(ValueError, match="nope"):
        top_bottom_table(scores, "nope", "score")


def test_histogram_embeds_bins_not_rows():
    df = pd.DataFrame({"score": np.random.default_rng(1).normal(size=50_000)})  # > MAX_ROWS
    spec = charts.histogram(df, "score", bins=30).to_dict()
    values = next(iter(spec["datasets"].values()))
    assert len(values) == 30
    assert sum(v["y"] for v in values) == 50_000


def test_offline_renderer_inlines_bundle_only_outside_the_book(monkeypatch, scores):
    charts.enable_offline()
    chart = charts.scatter(scores, "score", "score", tooltip=["token"])
    monkeypatch.setenv("RMLIB_BOOK", "1")
    html = render._offline_renderer(chart.to_dict())["text/html"]
    assert "vegaEmbed(el, spec, opts)" in html and "window.vegaEmbed=" not in html
    monkeypatch.delenv("RMLIB_BOOK")
    charts.enable_offline()
    first = render._offline_renderer(chart.to_dict())["text/html"]
    second = render._offline_renderer(chart.to_dict())["text/html"]
    assert "window.vegaEmbed=" in first and "window.vegaEmbed=" not in second


def test_slope_ci_rejects_estimates_outside_their_interval():
    df = pd.DataFrame({"m": ["a", "b"], "est": [0.5, 0.1], "lo": [0.2, 0.2], "hi": [0.8, 0.3]})
    with pytest.raises(ValueError, match="outside"):
        charts.slope_ci(df, "m", "est", "lo", "hi")
    ok = df.assign(lo=[0.2, 0.0])
    spec = charts.slope_ci(ok, "m", "est", "lo", "hi").to_dict()
    assert len(spec["layer"]) == 3  # reference line, CI rules, dots


# --------------------------------------------------------------------------- results and the claims page

def test_every_findings_chapter_writes_results_through_one_parameter():
    for name in book.chapters():
        text = book.template(name).read_text()
        assert "RESULTS_JSON" not in text and "RESULTS_PATH" not in text, name
        if name != "about":  # the about page glues its few numbers instead
            assert book.declares_results(name), f"{name} has no RESULTS_DIR parameter"
    params = book.with_results_dir("framing", {}, Path("/x/out"))
    assert params["RESULTS_DIR"] == str(Path("/x/out/results").resolve())
    assert book.with_results_dir("framing", {"RESULTS_DIR": "/y"}, Path("/x"))["RESULTS_DIR"] == "/y"
    assert book.with_results_dir("about", {}, Path("/x")) == {}
    # where results go is not an input: it does not change the stamp
    assert book.content_hash("framing", {"RESULTS_DIR": "/a"}) == book.content_hash("framing", {"RESULTS_DIR": "/b"})


def test_claims_runs_after_what_it_reads_and_reruns_when_results_change(tmp_path):
    from rmlib.analysis import claims

    sources = book.reads_results("claims")
    assert sources == claims.source_chapters()
    toc = book.chapters()
    assert toc.index("claims") < toc.index("heterogeneity")  # first in the findings, in the table of contents
    order = book.in_run_order(toc)
    assert sorted(order) == sorted(toc) and order.index("claims") > max(order.index(s) for s in sources)
    out = tmp_path / "executed"
    res = book.results_dir(out)
    res.mkdir(parents=True)
    params = book.with_results_dir("claims", {}, out)
    with pytest.raises(book.BookError, match="reads the results of"):
        book.run_chapter("claims", output_dir=out, log=lambda *_: None)
    for s in sources:
        (res / f"{s}.json").write_text('{"x": 1}')
    (out / "claims.ipynb").write_text("{}")  # as if the page had run with these results
    (res / "claims.json").write_text("{}")
    book.stamp_path("claims", out).write_text(json.dumps(
        {"hash": book.content_hash("claims", params), "dependencies": book.dependencies("claims", params)}))
    assert book.stale_reason("claims", params, out) is None
    (res / "framing.json").write_text('{"x": 2}')
    assert book.stale_reason("claims", params, out) == "results changed: framing"
    (res / "claims.json").unlink()  # a chapter whose own results vanished must run again
    assert "results file" in book.stale_reason("claims", params, out)


def test_results_are_strict_json_written_atomically(tmp_path):
    from rmlib import storage as results

    path = results.write_results("x", {"a": np.float32(1.5), "b": float("nan"), "c": [np.int64(3), np.inf],
                               "d": pd.DataFrame({"k": [1, 2]}), "e": np.array([True, False])}, tmp_path)
    assert path == tmp_path / "x.json" and sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]
    assert json.loads(path.read_text()) == {"a": 1.5, "b": None, "c": [3, None], "d": [{"k": 1}, {"k": 2}],
                                            "e": [True, False]}
    assert results.read_results("x", tmp_path)["a"] == 1.5
    assert results.write_results("x", {}, None) is None
    with pytest.raises(results.ResultsError, match="run it first"):
        results.read_results("missing", tmp_path)
