"""rmbook.chapters.identity_terms.analysis: strict matching of identity items, percentile gaps, spellings of a word."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rmlib.data as data
from rmbook.chapters.identity_terms import analysis as identity


def test_match_identity_items_uses_strict_rules():
    items = ["Christianity", "Black people", "Black hole", "Americans", "Gay", "Shorts", "Islam (religion)",
             "Lesbian bar"]
    m = identity.match_identity_items(items)
    got = dict(zip(m["item"], m["term"]))
    assert got == {"Christianity": "christian", "Black people": "black", "Americans": "american", "Gay": "gay",
                   "Islam (religion)": "muslim"}  # no substring matches; 'Shorts' is a known false friend
    assert set(m["rule"]) == {"noun form", "'people'", "plural", "exact"}
    amb = identity.match_identity_items(items, include_ambiguous=True)
    assert amb.loc[amb["item"] == "Shorts", "ambiguous"].item() == data.AMBIGUOUS_ITEMS["shorts"]


def test_identity_elo_ranks_percentiles_and_gap():
    n = 200
    rng = np.random.default_rng(0)
    elo = pd.DataFrame({"model": "m", "prompt_key": "p", "item": [f"i{k}" for k in range(n - 2)] + ["Gay", "Americans"],
                        "elo_score": np.arange(n, dtype=float)})
    elo["reward"] = rng.normal(size=n)
    elo.loc[elo["item"] == "Gay", "reward"] = -10.0  # the RM's lowest; people's second highest
    elo.loc[elo["item"] == "Americans", "reward"] = 10.0  # the RM's highest; people's highest
    r = identity.identity_elo_ranks(elo, identity.match_identity_items(elo["item"])).set_index("item")
    assert r.loc["Gay", "model_pct"] == pytest.approx(100 / n) and r.loc["Gay", "human_pct"] == pytest.approx(99.5)
    assert r.loc["Gay", "gap"] == pytest.approx(100 / n - 99.5)
    assert r.loc["Americans", "gap"] == pytest.approx(0.0)
    assert r.loc["Gay", "pejorative_in_some_uses"]


def test_identity_word_ranks_flip_human_ranking_under_negative_prompts():
    words = ["love", "war", "catholic", "elderly", "table", "murder"]
    rows = []
    for pk, pv in [("best", "positive"), ("worst", "negative")]:
        for k, w in enumerate(words):
            rows.append({"model": "m", "prompt_key": pk, "prompt_valence": pv, "word": w, "reward": float(k)})
    wr = identity.identity_word_ranks(pd.DataFrame(rows))
    assert set(wr["word"]) == {"catholic", "elderly"} and (wr["n_universe"] == 6).all()
    for w in ("catholic", "elderly"):
        pos, neg = (wr[(wr.word == w) & (wr.prompt_valence == v)].iloc[0] for v in ("positive", "negative"))
        assert pos["model_pct"] == neg["model_pct"]
        assert pos["human_pct"] + neg["human_pct"] == pytest.approx(100.0)  # flipped under negative prompts
        assert pos["gap"] == pytest.approx(pos["model_pct"] - pos["human_pct"])


def test_token_word_scores_group_spellings_and_report_spread():
    ts = pd.DataFrame({"model": "m", "prompt_key": "p", "prompt_valence": "positive",
                       "text": [" Gay", "gay", "GAY", " table", "!!"]
                       + [f" filler{chr(97 + k % 26)}{chr(97 + k // 26)}" for k in range(95)],
                       "reward": [10.0, -10.0, 0.0, 1.0, 5.0] + list(np.linspace(-5, 5, 95))})
    w = identity.token_word_scores(ts).set_index("word")
    assert "!!" not in w.index
    assert w.loc["gay", "n_variants"] == 3 and w.loc["gay", "reward"] == pytest.approx(0.0)
    assert w.loc["gay", "token_pct_max"] - w.loc["gay", "token_pct_min"] > 90  # one spelling alone would mislead


def _regression_to_the_mean_scores(n_fill=2000, n_models=20, rho=0.35, offset=-2.5, seed=0):
    """RMs that agree with people only in part (correlation ``rho``) over ``n_fill`` filler items, plus three identity
    items: 'Americans' at the 97th human percentile and 'Gay' at the 5th, placed by every RM exactly as its filler
    items of that human rank are (each RM's noise one quantile of N(0, 1)); 'Black people' at the 95th, the same
    but ``offset`` SDs lower in every RM: a real offset."""
    from scipy import stats as sps

    rng = np.random.default_rng(seed)
    h_fill = rng.normal(size=n_fill)
    h_id = {"Americans": sps.norm.ppf(0.97), "Gay": sps.norm.ppf(0.05), "Black people": sps.norm.ppf(0.95)}
    shift = {"Americans": 0.0, "Gay": 0.0, "Black people": offset}
    noise_q = sps.norm.ppf((np.arange(n_models) + 0.5) / n_models)  # symmetric: no item-level effect
    s = np.sqrt(1 - rho ** 2)
    rows = []
    for m in range(n_models):
        r_fill = rho * h_fill + s * rng.normal(size=n_fill)
        rows.append(pd.DataFrame({"item": [f"filler {k}" for k in range(n_fill)], "elo_score": h_fill,
                                  "reward": r_fill}))
        rows.append(pd.DataFrame({"item": list(h_id), "elo_score": list(h_id.values()),
                                  "reward": [rho * h_id[i] + s * noise_q[m] + shift[i] for i in h_id]}))
        rows[-2]["label"] = rows[-1]["label"] = f"m{m}"
    elo = pd.concat(rows, ignore_index=True).assign(prompt_key="p")
    return elo.assign(model=elo["label"])


def test_pure_regression_to_the_mean_is_not_flagged_after_adjustment_a_real_offset_is():
    elo = _regression_to_the_mean_scores()
    per_item, items = identity.identity_items(elo=elo)
    items = items.set_index("item")
    v = identity.item_verdicts(items.reset_index())
    # against zero, regression to the mean alone makes the top item 'reliably lower' and the bottom one 'higher'
    assert set(v["raw_below"]["item"]) == {"Americans", "Black people"} and list(v["raw_above"]["item"]) == ["Gay"]
    assert items.loc["Americans", "gap"] < -15 and items.loc["Gay", "gap"] > 15
    # against items of the same human rank, only the planted offset remains
    assert list(v["below"]["item"]) == ["Black people"] and v["above"].empty
    assert abs(items.loc["Americans", "excess"]) < 5 and abs(items.loc["Gay", "excess"]) < 5
    assert items.loc["Black people", "excess"] < -30
    assert items.loc["Americans", "expected_gap"] < -15 < 15 < items.loc["Gay", "expected_gap"]
    s = identity.verdicts_summary(items.reset_index(), v, enough=True)
    assert (s["n_below"], s["n_above"], s["n_below_raw"], s["n_above_raw"], s["n_items"]) == (1, 0, 2, 1, 3)
    assert identity.verdicts_summary(items.reset_index(), v, enough=False)["n_below"] is None


def test_expected_gaps_follow_the_human_rank_and_bins_are_equal_width():
    assert identity.human_bin(pd.Series([0.01, 5.0, 5.01, 50.0, 99.99, 100.0]), 20).tolist() == [1, 1, 2, 10, 20, 20]
    with pytest.raises(ValueError, match="bins"):
        identity.human_bin(pd.Series([50.0]), 0)
    gaps = identity.elo_gaps(_regression_to_the_mean_scores(n_models=3))
    exp = identity.expected_gaps(gaps, 10).groupby("human_bin")["expected_gap"].mean()
    assert exp.is_monotonic_decreasing and exp.iloc[0] > 20 and exp.iloc[-1] < -20


def test_bin_sensitivity_counts_the_adjusted_verdicts_per_bin_width():
    elo = _regression_to_the_mean_scores()
    sens = identity.bin_sensitivity(elo=elo, bins=(10, 20))
    assert sens == {10: {"n_below": 1, "n_above": 0}, 20: {"n_below": 1, "n_above": 0}}


def test_the_verdict_sentence_uses_the_adjusted_counts_and_states_the_raw_ones():
    from rmbook.chapters.identity_terms import results
    from rmbook.report.prose import render

    per_item, items = identity.identity_items(elo=_regression_to_the_mean_scores())
    v = identity.item_verdicts(items)
    section = results.elo_results(items, v, 20, {10: {"n_below": 1, "n_above": 0}}, pd.DataFrame({"axis": []}))
    md = render("identity_terms", "item_verdicts", s=section)
    ex = items.set_index("item").loc["Black people"]
    assert "**1 item sits reliably *lower*" in md and "**0 sit reliably *higher***: none" in md
    assert f"Black people ({ex['excess']:+.0f} points; gap {ex['gap']:+.0f})" in md and "Americans (" not in md
    assert "2 would be lower and 1 higher" in md and "With 10 bins instead, 1 are lower and 0 higher" in md
