"""rmbook.analysis.card.gallery: each paper RM's card from its released scores, placed among the other nine, and one
row per card for the "Value cards" page; the page's overview chart marks each computed model apart."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.analysis import card
from rmbook.analysis.card import gallery
from rmbook.report.charts import cards_overview_chart


@pytest.fixture(scope="module")
def quick_cards():
    return gallery.paper_rm_cards("quick", n_resamples=99)


def test_each_paper_rm_is_placed_among_the_other_nine_by_its_released_scores(quick_cards):
    assert len(quick_cards) == 10 and all(c.kind == "quick" for c in quick_cards)
    gaps = card.big_two_gaps(card.reference_scores()).set_index(["model", "valence"])["gap"]
    for c in quick_cards:
        assert c.model not in c.reference_families and len(c.reference_families) == 9
        assert all(p.n_reference == 9 for p in c.placements)
        assert all(g.gap == pytest.approx(gaps[(c.model, g.valence)]) for g in c.gaps)
    extremes = {gaps.xs(v, level="valence").idxmin() for v in ("negative", "positive")}
    rows = gallery.gallery_rows(quick_cards, "released scores").set_index("label")
    for label in extremes:  # the most agency-leaning paper RM is beyond the other nine under that valence
        assert "agency side of every paper RM" in (rows.loc[label, "side_negative"], rows.loc[label, "side_positive"])
    assert rows["n_foundations_beyond"].isna().all() and rows["nearest"].isna().all()  # a quick card has neither
    assert gallery.lowest_paper_tau(quick_cards) is None


def test_the_overview_chart_draws_paper_rms_as_dots_and_each_computed_model_as_a_diamond(quick_cards):
    rows = gallery.gallery_rows(quick_cards, "released scores")
    computed = rows.iloc[:2].assign(source="computed", label=["mine", "yours"])
    spec = cards_overview_chart(pd.concat([rows, computed], ignore_index=True),
                                {c.label: c.family for c in quick_cards}).to_dict()
    shape = spec["encoding"]["shape"]["scale"]
    assert shape["domain"][-2:] == ["mine", "yours"] and shape["range"][-2:] == ["diamond", "diamond"]
    assert set(shape["domain"][:-2]) == {"Gemma-based paper RM", "Llama-based paper RM"}
    assert shape["range"][:-2] == ["circle", "circle"]
