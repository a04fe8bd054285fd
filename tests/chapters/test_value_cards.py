"""The "Value cards" page (#42): the ten paper RMs' cards from their released scores and a tiny model's computed card,
one row each, the rows equal to the cards that rmlib card writes, and the page's sentences stating its summary."""
from __future__ import annotations

import pytest

from rmbook.analysis.card import gallery


def test_value_cards_paper_rms_and_a_computed_card(chapter):
    c = chapter("value_cards")
    r, md = c.results, c.markdown
    rows = {row["label"]: row for row in r["rows"]}
    assert r["mode"] == "compute" and r["kind"] == "standard" and len(r["prompts"]) == 18
    assert [row["source"] for row in r["rows"]].count("released scores") == 10 and "tiny-llama" in rows
    # each paper RM's row is its card from the released scores, placed among the other nine
    paper = gallery.gallery_rows(gallery.paper_rm_cards(n_resamples=199), "released scores").set_index("label")
    for label, row in paper.iterrows():
        assert rows[label]["gap_negative"] == pytest.approx(row["gap_negative"])
        assert rows[label]["side_positive"] == row["side_positive"] and rows[label]["nearest"] == row["nearest"]
    tiny, s = rows["tiny-llama"], r["computed"]
    assert s["n_models"] == 1 and s["max_tau_model"] == "tiny-llama" and s["max_tau"] == pytest.approx(tiny["nearest_tau"])
    assert s["n_beyond_gap"] == int(tiny["side_negative"] != "among them" or tiny["side_positive"] != "among them")
    assert f"Kendall's τ = {s['max_tau']:.2f} (tiny-llama with {tiny['nearest']})" in md
    assert f"{r['n_paper_beyond_gap']} paper RMs of ten" in md or f"{r['n_paper_beyond_gap']} paper RM of ten" in md
    assert md.count("## Value card: ") == 11 and c.n_charts == 1 + 3  # the overview, and the computed card's three
