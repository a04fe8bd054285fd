"""tools/readme_picture.py: the README's picture is a chart the page drew, taken from the executed notebook."""
from __future__ import annotations

import importlib.util
import json

import altair as alt
import pandas as pd

from rmbook.paths import ROOT
from rmbook.report.charts import render_html

_spec = importlib.util.spec_from_file_location("readme_picture", ROOT / "tools" / "readme_picture.py")
rp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rp)


def _notebook(tmp_path, titles):
    outputs = [{"output_type": "display_data", "metadata": {},
                "data": {"text/html": render_html(alt.Chart(pd.DataFrame({"x": [1, 2]}), title=t).mark_point()
                                                  .encode(x="x:Q").to_dict())}} for t in titles]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "", "outputs": outputs[:1]},
                    {"cell_type": "markdown", "metadata": {}, "source": "text"},
                    {"cell_type": "code", "metadata": {}, "source": "", "outputs": outputs[1:]}]}
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps(nb))
    return path


def test_the_charts_are_found_in_page_order_and_the_chosen_one_is_drawn(tmp_path, capsys):
    path = _notebook(tmp_path, ["first", "second"])
    assert [s["title"] for s in rp.chart_specs(path)] == ["first", "second"]
    assert rp.main([str(path), "--list"]) == 0 and capsys.readouterr().out == "1: first\n2: second\n"
    out = tmp_path / "pic" / "c.png"
    assert rp.main([str(path), "--chart", "2", "--out", str(out), "--scale", "1"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "'second'" in capsys.readouterr().out
    assert rp.main([str(path), "--chart", "3", "--out", str(out)]) == 2  # there is no third chart


def test_a_value_cards_page_gives_its_chart_too(tmp_path):
    """The README shows a value card's chart: card.html is one page, its Vega bundle inline, not a notebook."""
    chart = render_html(alt.Chart(pd.DataFrame({"x": [1, 2]}), title="card").mark_point().encode(x="x:Q").to_dict(),
                        inline_bundle=True)
    page = tmp_path / "card.html"
    page.write_text(f"<html><body><h1>A value card</h1>{chart}</body></html>")
    assert [s["title"] for s in rp.chart_specs(page)] == ["card"]
