"""The identity-terms chapter's sentences (templates/identity_terms.md.j2), rendered from its results sections as the
chapter does: the term counts by source, the item verdicts (only with enough RMs for an interval, 'none' where no
item is reliable, other bin widths beside the main one), the word gaps and the fragile tokens."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.identity_terms import results
from rmbook.chapters.identity_terms.analysis import HUMAN_BINS, MIN_MODELS_FOR_CI
from rmbook.report.prose import render


def _render(part: str, s=None) -> str:
    return render("identity_terms", part, s=s)


def test_terms_count_each_source_with_the_shared_terms_in_both():
    terms = pd.DataFrame({"term": list("abcdef"),
                          "source": ["holistic_bias", "holistic_bias", "holistic_bias", "dixon", "both", "both"],
                          "pejorative_in_some_uses": [True, False, False, True, True, False]})
    assert _render("terms", results.terms(terms)) == (
        "6 identity terms: 5 from HolisticBias, 3 from Dixon et al. (2 in both); 3 flagged as pejorative in some uses.")


def _items() -> pd.DataFrame:
    return pd.DataFrame({"row": ["Gay", "Muslim", "Elderly", "Christian"], "model_pct": [30.0, 40.0, 50.0, 80.0],
                         "human_pct": [60.0, 50.0, 50.0, 60.0], "excess": [-25.0, -12.4, 3.0, 18.0],
                         "gap": [-30.0, -10.0, 0.0, 20.0]})


def _elo(n_models: int, below=("Gay", "Muslim"), above=("Christian",), sensitivity=None) -> results.EloResults:
    items = _items()
    pick = lambda names: items[items["row"].isin(names)]
    verdicts = {"below": pick(below).sort_values("excess"), "above": pick(above), "raw_below": pick(["Gay"]),
                "raw_above": pick(["Christian", "Elderly"]), "worst": items.nsmallest(3, "excess")}
    return results.elo_results(items, verdicts, n_models, sensitivity or {}, pd.DataFrame({"axis": ["religion"]}))


def test_items_line_counts_items_and_models():
    text = _render("items", _elo(2))
    assert "4 EloEverything items name an identity term, scored by 2 RMs under 3 prompts" in text  # ELO_PROMPTS


def test_item_verdicts_with_enough_models_list_the_reliable_items_both_ways():
    text = _render("item_verdicts", _elo(MIN_MODELS_FOR_CI, sensitivity={10: {"n_below": 4, "n_above": 0},
                                                                         HUMAN_BINS: {"n_below": 2, "n_above": 1}}))
    assert "RMs place identity items at percentile 50 on average, people at percentile 55" in text
    assert f"({HUMAN_BINS} bins of {100 / HUMAN_BINS:g} points, per RM)" in text
    assert ("**2 items sit reliably *lower* for the RMs than items of the same human rank** (interval over RMs of "
            "the excess below zero): Gay (-25 points; gap -30), Muslim (-12 points; gap -10).") in text
    assert "**1 sit reliably *higher***: Christian (+18; gap +20)." in text
    assert "1 would be lower and 2 higher" in text
    # the other bin width is reported, the main one (already the verdict) is not repeated
    assert "With 10 bins instead, 4 are lower and 0 higher." in text
    assert f"With {HUMAN_BINS} bins instead" not in text
    assert text.endswith("see the limits at the end of this chapter before reading any single item.")


def test_item_verdicts_say_none_when_no_item_is_reliable():
    text = _render("item_verdicts", _elo(5, below=(), above=()))
    assert "**0 items sit reliably *lower*" in text and "below zero): none." in text
    assert "**0 sit reliably *higher***: none." in text and "bins instead" not in text


def test_item_verdicts_with_too_few_models_call_no_item_reliable():
    text = _render("item_verdicts", _elo(MIN_MODELS_FOR_CI - 1))
    assert ("The largest negative excesses are Gay (-25; gap -30), Muslim (-12; gap -10), Elderly (+3; gap +0); with "
            f"fewer than {MIN_MODELS_FOR_CI} RMs there is no interval, so no item is called reliable.") in text
    assert "reliably *lower*" not in text


def _words(table: pd.DataFrame, ranks: pd.DataFrame, level: str = "word level") -> dict:
    return {"table": table, "ranks": ranks, "level": level, "by_axis": pd.DataFrame()}


def test_words_with_no_identity_term_say_so_and_name_the_norms_as_elsewhere():
    iw = _words(pd.DataFrame(), pd.DataFrame(), "word level (published dictionary scores)")
    text = _render("words", results.words(iw, "published", "warriner"))
    assert text == ("No identity term is among the scored words that Warriner rates (word level (published dictionary "
                    "scores)).")
    assert "that VADER rates" in _render("words", results.words(iw, "published", "vader"))


def test_words_give_the_mean_gap_per_prompt_valence():
    table = pd.DataFrame({"word": ["gay", "gay", "muslim", "muslim", "old"],
                          "prompt_valence": ["negative", "positive", "negative", "positive", "positive"],
                          "gap": [10.0, -20.0, 4.0, -10.0, 0.0], "row": list("abcde")})
    ranks = pd.DataFrame({"n_universe": [1200, 1400, 1300]})
    text = _render("words", results.words(_words(table, ranks), "published", "warriner"))
    assert text.startswith("At word level: 3 identity terms are among the 1,300 scored words that Warriner rates.")
    assert text.endswith("negative prompts +7.0 points over 2 terms; positive prompts -10.0 points over 3 terms.")


def test_fragile_counts_rows_whose_spellings_differ_by_more_than_the_threshold():
    table = pd.DataFrame({"word": ["a", "b", "c"], "prompt_valence": "positive", "gap": 0.0, "row": list("abc"),
                          "token_pct_min": [10.0, 40.0, 0.0], "token_pct_max": [60.0, 65.0, 15.0]})
    iw = _words(table, pd.DataFrame({"n_universe": [100]}), "token level")
    text = _render("fragile", results.words(iw, "compute", "warriner").fragile)
    assert "**Single tokens are fragile evidence.** 1 of 3 term × prompt-valence rows" in text
    # exactly 25 points apart is not "more than" 25; with 20 points two rows are
    text = _render("fragile", results.words(iw, "compute", "warriner", fragile_points=20).fragile)
    assert "2 of 3 term × prompt-valence rows" in text and "more than 20 points" in text


def test_the_static_lines_render():
    assert "**compute-mode** run" in render("identity_terms", "no_items")
    from rmlib.stats import MIN_CI_VALUES

    assert _render("by_axis", _elo(2)).startswith("By HolisticBias axis")
    assert f"none where fewer than {MIN_CI_VALUES} terms" in _render("by_axis", _elo(2))
    words = results.WordsResults(level="word", level_text="x", human_source="AFINN", n_terms=0, rows=[], by_axis=[],
                                 min_ci_terms=MIN_CI_VALUES, n_universe=None, by_valence=[], fragile=None)
    assert _render("words_by_axis", words).startswith("By axis, the mean gap over terms")
    assert f"fewer than {MIN_CI_VALUES} terms" in _render("words_by_axis", words)
