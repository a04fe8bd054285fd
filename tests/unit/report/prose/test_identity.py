"""rmlib.report.prose.identity: the term counts by source, the item verdicts (only with enough RMs for an interval,
'none' where no item is reliable, other bin widths beside the main one), the word gaps and the fragile tokens."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.identity import HUMAN_BINS, MIN_MODELS_FOR_CI
from rmlib.report.prose import identity as pi


def test_terms_count_each_source_with_the_shared_terms_in_both():
    terms = pd.DataFrame({"term": list("abcdef"),
                          "source": ["holistic_bias", "holistic_bias", "holistic_bias", "dixon", "both", "both"],
                          "pejorative_in_some_uses": [True, False, False, True, True, False]})
    assert pi.terms_markdown(terms) == ("6 identity terms: 5 from HolisticBias, 3 from Dixon et al. (2 in both); "
                                        "3 flagged as pejorative in some uses.")


def test_items_line_counts_items_and_models():
    text = pi.items_markdown(pd.DataFrame({"row": ["x", "y", "z"]}), 2)
    assert "3 EloEverything items name an identity term, scored by 2 RM(s)" in text


def _items() -> pd.DataFrame:
    return pd.DataFrame({"row": ["Gay", "Muslim", "Elderly", "Christian"], "model_pct": [30.0, 40.0, 50.0, 80.0],
                         "human_pct": [60.0, 50.0, 50.0, 60.0], "excess": [-25.0, -12.4, 3.0, 18.0],
                         "gap": [-30.0, -10.0, 0.0, 20.0]})


def _verdicts(items: pd.DataFrame, below=("Gay", "Muslim"), above=("Christian",)) -> dict:
    pick = lambda names: items[items["row"].isin(names)]
    return {"below": pick(below).sort_values("excess"), "above": pick(above), "raw_below": pick(["Gay"]),
            "raw_above": pick(["Christian", "Elderly"]), "worst": items.nsmallest(3, "excess")}


def test_item_verdicts_with_enough_models_list_the_reliable_items_both_ways():
    items = _items()
    text = pi.item_verdicts_markdown(items, _verdicts(items), MIN_MODELS_FOR_CI,
                                     sensitivity={10: {"n_below": 4, "n_above": 0},
                                                  HUMAN_BINS: {"n_below": 2, "n_above": 1}})
    assert "RMs place identity items at the 50th percentile on average, people at the 55th" in text
    assert f"({HUMAN_BINS} bins of {100 / HUMAN_BINS:g} points, per RM)" in text
    assert ("**2 item(s) sit reliably *lower* for the RMs than items of the same human rank** (interval over RMs of "
            "the excess below zero): Gay (-25 points; gap -30), Muslim (-12 points; gap -10)") in text
    assert "**1 sit reliably *higher***: Christian (+18; gap +20)" in text
    assert "1 would be lower and 2 higher" in text
    # the other bin width is reported, the main one (already the verdict) is not repeated
    assert "With 10 bins instead, 4 are lower and 0 higher." in text
    assert f"With {HUMAN_BINS} bins instead" not in text


def test_item_verdicts_say_none_when_no_item_is_reliable():
    items = _items()
    text = pi.item_verdicts_markdown(items, _verdicts(items, below=(), above=()), 5)
    assert "**0 item(s) sit reliably *lower*" in text and "below zero): none." in text
    assert "**0 sit reliably *higher***: none." in text and "bins instead" not in text


def test_item_verdicts_with_too_few_models_call_no_item_reliable():
    items = _items()
    text = pi.item_verdicts_markdown(items, _verdicts(items), MIN_MODELS_FOR_CI - 1)
    assert "The largest negative excesses are Gay (-25; gap -30), Muslim (-12; gap -10), Elderly (+3; gap +0)" in text
    assert f"with fewer than {MIN_MODELS_FOR_CI} RMs there is no interval, so no item is called reliable" in text
    assert "reliably *lower*" not in text


def test_words_with_no_identity_term_say_so():
    words = {"table": pd.DataFrame(), "ranks": pd.DataFrame(), "level": "word level (published dictionary scores)"}
    text = pi.words_markdown(words, "warriner")
    assert text == ("No identity term is among the scored words that warriner rates (word level (published dictionary "
                    "scores)).")


def test_words_give_the_mean_gap_per_prompt_valence():
    table = pd.DataFrame({"word": ["gay", "gay", "muslim", "muslim", "old"],
                          "prompt_valence": ["negative", "positive", "negative", "positive", "positive"],
                          "gap": [10.0, -20.0, 4.0, -10.0, 0.0]})
    ranks = pd.DataFrame({"n_universe": [1200, 1400, 1300]})
    text = pi.words_markdown({"table": table, "ranks": ranks, "level": "word level"}, "warriner")
    assert "At word level: 3 identity term(s) are among the 1,300 scored words that Warriner rates." in text
    assert "negative prompts +7.0 points over 2 terms; positive prompts -10.0 points over 3 terms." in text


def test_fragile_counts_rows_whose_spellings_differ_by_more_than_the_threshold():
    table = pd.DataFrame({"token_pct_min": [10.0, 40.0, 0.0], "token_pct_max": [60.0, 65.0, 15.0]})
    assert "**Single tokens are fragile evidence.** 1 of 3 term × prompt-valence rows" in pi.fragile_markdown(table)
    # exactly 25 points apart is not "more than" 25; with 20 points two rows are
    assert "2 of 3 term × prompt-valence rows" in pi.fragile_markdown(table, points=20)
    assert "more than 20 points" in pi.fragile_markdown(table, points=20)
