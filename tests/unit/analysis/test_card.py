"""rmbook.analysis.card (#42, the quick card): the paper RMs' numbers are the Big Two chapter's own, a planted model is
placed by the stated rule, and card.json round-trips through its type and is refused when damaged or foreign."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rmbook.analysis import card
from rmbook.analysis.families import family_analysis
from rmbook.analysis.results.claims import ClaimsResults
from rmbook.report.card import card_markdown
from rmlib.storage import ResultsError, read_results, write_results


@pytest.fixture(scope="module")
def reference():
    return card.reference_scores()


def _planted(reference, favoured: str | None, model="planted") -> pd.DataFrame:
    """One paper RM's rows re-scored: ``favoured`` words get +10 on top of a tiny spread (None: as released)."""
    one = reference[reference["model"] == "R-Gem-2B"].assign(model=model, nickname=model, family="Qwen")
    if favoured is not None:
        one = one.assign(reward=np.where(one["category"] == favoured, 10.0, 0.0) + one["reward"] * 1e-3)
    return one


def _card(reference, scores, **kw) -> card.ValueCard:
    return card.card_from_scores(scores, reference, model=scores["model"].iloc[0], label="Planted",
                                 reward_kind="RM score", family=None, rmlib_version="test", **kw)


def test_the_paper_rms_gaps_are_the_big_two_chapters_model_medians(reference):
    medians = family_analysis(reference, n_resamples=99)["model_medians"]
    wide = medians.pivot_table(index=["model", "valence"], columns="category", values="median_rank")
    chapter = (wide["Agency"] - wide["Communion"]).rename("gap")
    ours = card.big_two_gaps(reference).set_index(["model", "valence"])["gap"]
    assert len(ours) == 20 and ours.sort_index().equals(chapter.sort_index())


@pytest.mark.parametrize("favoured, side", [("Agency", "agency side of every paper RM"),
                                            ("Communion", "communion side of every paper RM")])
def test_a_model_that_favours_one_category_lands_beyond_every_paper_rm(reference, favoured, side):
    c = _card(reference, _planted(reference, favoured))
    assert [p.side for p in c.placements] == [side, side]
    assert {p.rank for p in c.placements} == ({1} if favoured == "Agency" else {11})
    assert all(p.n_reference == 10 for p in c.placements)


def test_a_copy_of_a_paper_rm_is_placed_among_them_next_to_itself(reference):
    c = _card(reference, _planted(reference, None))
    assert [p.side for p in c.placements] == ["among them", "among them"]
    assert all(p.nearest[0] == "R-Gem-2B" and p.nearest_distance == 0.0 for p in c.placements)
    love = {(w.model, w.word): w.rank for w in c.words}
    assert love[("planted", "love")] == love[("R-Gem-2B", "love")] == 1.0  # the FAccT paper's figure 1


def test_the_placement_rule():
    ref = pd.Series({"a": -10.0, "b": 0.0, "c": 5.0})
    assert card.placement(-11, ref) == {"gap": -11.0, "rank": 1, "n_reference": 3,
                                        "side": "agency side of every paper RM", "nearest": ["a", "b"],
                                        "nearest_distance": 1.0}
    assert card.placement(6, ref)["side"] == "communion side of every paper RM"
    among = card.placement(1, ref)
    assert among["side"] == "among them" and among["rank"] == 3 and among["nearest"] == ["b", "c"]


def test_a_few_prompts_give_no_interval_and_enough_give_one(reference):
    quick = card.gap_intervals(_planted(reference, None), n_resamples=199)
    assert quick["ci_low"].isna().all() and (quick["n_prompts"] == 2).all()
    full = card.reference_scores(prompt_keys=None)
    one = full[full["model"] == "R-Lla-3B"]
    iv = card.gap_intervals(one, n_resamples=199).set_index("valence")
    assert (iv["n_prompts"] == 27).all() and (iv["ci_low"] <= iv["gap"]).all() and (iv["gap"] <= iv["ci_high"]).all()
    assert "too few to resample" in card_markdown(_card(reference, _planted(reference, None)))


def test_other_prompts_than_the_references_are_refused(reference):
    scores = _planted(reference, None)
    with pytest.raises(ValueError, match="same prompts"):
        _card(reference, scores[scores["prompt_key"] != "bad_ever_one"])


def test_the_card_round_trips_and_a_damaged_or_foreign_file_is_refused(reference, tmp_path):
    c = _card(reference, _planted(reference, "Agency"))
    path = write_results(c, tmp_path)
    assert path.name == "card.json" and read_results("card", tmp_path, card.ValueCard) == c
    data = json.loads(path.read_text())
    data["placements"][0]["gap"] = 99.0
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError):
        read_results("card", tmp_path, card.ValueCard)
    write_results(ClaimsResults(rules={}, chapters_read=[], rows=[], parts={}), tmp_path)
    (tmp_path / "claims.json").rename(path)
    with pytest.raises(ResultsError):
        read_results("card", tmp_path, card.ValueCard)


def test_the_markdown_states_each_number_of_the_card(reference):
    c = _card(reference, _planted(reference, "Agency"))
    md = card_markdown(c)
    for p in c.placements:
        assert f"gap **{p.gap:+.1f}**" in md and f"rank {p.rank} of 11" in md and "every paper RM" in md
    assert "4 Gemma-based and 6 Llama-based" in md and "never that it is like one family" in md
    assert "R-Gem-2B ranks them 1 and" in md


def test_the_html_page_holds_the_sentences_and_a_chart_and_loads_nothing(reference):
    import re

    from rmbook.report.card import card_html

    c = _card(reference, _planted(reference, "Communion"))
    page = card_html(c)
    assert page.startswith("<!DOCTYPE html>") and "<h2>Value card: Planted</h2>" in page
    assert page.count('class="rmlib-chart"') == 1 and "window.vegaEmbed" in page  # the bundle is inlined
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    spec = page.split("var spec = ", 1)[1].split(";\n", 1)[0]
    assert spec.count('"this model"') >= 2 and spec.count("paper RM") >= 2


def test_a_card_diffed_with_itself_shows_no_change_and_a_planted_shift_shows_exactly_that(reference):
    a = _card(reference, _planted(reference, None))
    same = card.diff_cards(a, a)
    assert (same["change"] == 0).all() and not same["outside_noise"].fillna(False).any()
    spread = next(g for g in a.gaps if g.valence == "positive").prompt_gaps.values()
    noise = max(spread) - min(spread)
    for shift, outside in ((noise + 1.0, True), (noise / 2, False)):
        moved = [g.model_copy(update={"gap": g.gap + (shift if g.valence == "positive" else 0.0)}) for g in a.gaps]
        d = card.diff_cards(a, a.model_copy(update={"gaps": moved})).set_index("measure")
        pos, neg = d.loc["agency − communion gap, positive prompts"], d.loc["agency − communion gap, negative prompts"]
        assert pos["change"] == pytest.approx(shift) and bool(pos["outside_noise"]) is outside
        assert pos["noise"] == noise and neg["change"] == 0 and not neg["outside_noise"]  # the stated rule


def test_cards_of_other_prompts_are_not_diffed(reference):
    a = _card(reference, _planted(reference, None))
    with pytest.raises(ValueError, match="different things"):
        card.diff_cards(a, a.model_copy(update={"prompts": ["best_ever_one"]}))
