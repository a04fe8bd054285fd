"""rmbook.chapters.value_cards.gallery: each paper RM's card from its released scores, placed among the other nine, and
one row per card for the "Value cards" page; the page's overview chart marks each computed model apart."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.value_cards import analysis as card
from rmbook.chapters.value_cards import gallery
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
    by_label = {c.label: c for c in quick_cards}
    for label in extremes:  # the most agency-leaning paper RM's point is beyond the other nine under that valence
        points = [p.point_side for p in by_label[label].placements]
        assert "agency side of every paper RM" in points
    for c in quick_cards:  # but "beyond" is said only of a whole interval (#66 item 2), and the base rate counts it
        for p, g in zip(c.placements, c.gaps):
            others = [r.gap for r in c.reference if r.valence == g.valence and r.model != c.model]
            assert (p.side != "among them") == (g.ci_high < min(others) or g.ci_low > max(others))
        assert c.base_rate.per_model[c.label] == sum(p.side != "among them" for p in c.placements)
        assert rows.loc[c.label, "n_beyond"] == sum(p.side != "among them" for p in c.placements)
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


def test_the_books_trained_rms_are_the_finetuning_chapters_first_seed_main_runs():
    """src/rmbook/chapters/value_cards/params.yaml names the RMs by hand; a change to the finetuning chapter's design
    that renames its runs fails here rather than leaving the page to report them missing."""
    import yaml

    from rmbook.chapters.finetuning.analysis import run_name
    from rmbook.paths import ROOT

    ft = yaml.safe_load((ROOT / "src/rmbook/chapters/finetuning/params.yaml").read_text())
    cards = yaml.safe_load((ROOT / "src/rmbook/chapters/value_cards/params.yaml").read_text())
    expected = [f"local:{run_name(b, ft['SOURCES'], ft['SEEDS'][0], ft['N_PAIRS'], ft['STEPS'], ft['BATCH_SIZE'], ft['TUNING'])}"
                for b in ft["BASES"]]
    assert cards["TRAINED"] == expected and set(cards["MODELS"]) == set(ft["BASES"])


def test_an_rm_not_trained_here_is_reported_and_an_id_that_is_no_trained_rm_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    pairs, missing = gallery.trained_pairs(["local:not-trained-here"])
    assert pairs == [] and list(missing) == ["local:not-trained-here"]
    with pytest.raises(ValueError, match="not an RM that rmlib trained"):
        gallery.trained_pairs(["tiny-llama"])


def test_a_base_and_rm_pair_is_diffed_and_a_known_card_is_reused(quick_cards, monkeypatch):
    base, rm = quick_cards[0], quick_cards[1]
    made = []
    monkeypatch.setattr(gallery, "value_card", lambda m, **kw: made.append((m, kw)) or rm)
    cards = gallery.pair_cards([(base.model, "local:rm")], [base], kind="quick")
    assert cards == [(base, rm)] and made == [("local:rm", {"kind": "quick"})]  # the base's card was known
    d = gallery.pair_diffs(cards)
    assert set(d["base"]) == {base.label} and set(d["rm"]) == {rm.label}
    gap = d.set_index("measure").loc["agency − communion gap, positive prompts"]
    assert gap["change"] == pytest.approx(next(g.gap for g in rm.gaps if g.valence == "positive")
                                          - next(g.gap for g in base.gaps if g.valence == "positive"))
    assert gallery.pair_diffs([]).empty



def test_the_page_links_each_card_to_the_anchor_sphinx_gives_its_heading(quick_cards):
    from docutils.nodes import make_id

    from rmbook.report.card import card_links, card_markdown

    line = card_links(quick_cards)
    for c in quick_cards:  # the heading each card's sentences open with, and the id Sphinx makes of it
        heading = card_markdown(c).splitlines()[0].removeprefix("## ")
        assert f'<a href="#{make_id(heading)}">{c.label}</a>' in line
    assert line.index(quick_cards[0].label) < line.index(quick_cards[-1].label)  # in the order the page shows them
    odd = quick_cards[0].model_copy(update={"label": "Qwen2.5 <b>"})
    assert card_links([odd]) == 'Each card on this page: <a href="#value-card-qwen2-5-b">Qwen2.5 &lt;b&gt;</a>.'
