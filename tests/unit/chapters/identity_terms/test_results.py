"""rmbook.chapters.identity_terms.results: the chapter's results built section by section from planted terms, item
and word scores, stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.identity_terms import analysis as identity
from rmbook.chapters.identity_terms import results
from rmbook.results import read_results, write_results


def _elo(n_fill=300, n_models=4, seed=0) -> pd.DataFrame:
    """RMs that half agree with people over filler items, plus three identity items, one placed lower by all."""
    rng = np.random.default_rng(seed)
    h = rng.normal(size=n_fill)
    ident = {"Americans": 1.5, "Gay": -1.2, "Black people": 1.3}
    rows = []
    for m in range(n_models):
        rows.append(pd.DataFrame({"item": [f"filler {k}" for k in range(n_fill)], "elo_score": h,
                                  "reward": 0.5 * h + rng.normal(size=n_fill), "label": f"m{m}"}))
        rows.append(pd.DataFrame({"item": list(ident), "elo_score": list(ident.values()),
                                  "reward": [0.5 * v - 3.0 * (i == "Black people") + 0.1 * m
                                             for i, v in ident.items()], "label": f"m{m}"}))
    elo = pd.concat(rows, ignore_index=True).assign(prompt_key="p")
    return elo.assign(model=elo["label"])


def _words() -> dict:
    """What :func:`identity.identity_words` returns, for two models' planted dictionary-word scores."""
    vocab = ["love", "war", "catholic", "elderly", "table", "murder", "peace", "gay"]
    words = pd.DataFrame([{"model": m, "reward_kind": "RM score", "prompt_key": pk, "prompt_valence": pv, "word": w,
                           "reward": float(k * (1 + j))} for j, m in enumerate(["a", "b"])
                          for pk, pv in [("best", "positive"), ("worst", "negative")] for k, w in enumerate(vocab)])
    ranks = identity.identity_word_ranks(words)
    group = ["word", "axis", "pejorative_in_some_uses", "prompt_valence"]
    table = ranks.groupby(group, as_index=False)[["model_pct", "human_pct", "gap"]].mean()
    table["row"] = table["word"]
    by_axis = table.groupby(["axis", "prompt_valence"], as_index=False)["gap"].mean().rename(columns={"gap": "mean"})
    return {"words": words, "ranks": ranks, "table": table, "by_axis": by_axis, "level": "word level"}


def _terms() -> pd.DataFrame:
    return pd.DataFrame({"term": ["gay", "catholic", "elderly"], "source": ["both", "holistic_bias", "dixon"],
                         "pejorative_in_some_uses": [True, False, False]})


def test_the_results_of_planted_scores_are_typed_and_read_back(tmp_path):
    elo = _elo()
    per_item, items = identity.identity_items(elo=elo)
    verdicts = identity.item_verdicts(items)
    sensitivity = identity.bin_sensitivity(bins=(10, 20), elo=elo)
    iw = _words()
    words = results.words(iw, "published", "warriner")
    res = results.chapter_results("published", results.terms(_terms()), iw["words"], words,
                                  results.elo_results(items, verdicts, 4, sensitivity, identity.axis_gaps(per_item)))
    e = res.elo
    assert e.n_items == 3 and e.n_below == len(verdicts["below"]) and e.human_bins == 20 and e.bin_points == 5
    assert set(e.adjusted_by_bins) == {"10", "20"} and "row" not in e.items[0]
    # the other bin width beside the chapter's, and the items the verdict names, with their flagged rows
    assert [(o.bins, o.n_below, o.n_above) for o in e.other_bins] == [
        (10, sensitivity[10]["n_below"], sensitivity[10]["n_above"])]
    assert e.has_interval and [b.row for b in e.below] == verdicts["below"]["row"].tolist()
    assert len(e.worst) == 3 and e.worst[0].excess == pytest.approx(items["excess"].min())
    assert e.model_pct_mean == pytest.approx(items["model_pct"].mean())
    assert res.words.level == "word" and res.words.n_universe == 8 and "row" not in res.words.rows[0]
    assert res.words.human_source == "Warriner" and res.words.fragile is None  # word level: no spellings
    assert res.words.n_terms == iw["table"]["word"].nunique()
    assert {g.prompt_valence for g in res.words.by_valence} == {"positive", "negative"}
    assert res.models == ["a", "b"] and res.reward_kinds == ["RM score"]
    assert res.terms == results.Terms(n_terms=3, n_holistic_bias=2, n_dixon=2, n_both=1, n_flagged=1)
    write_results(res, tmp_path)
    assert read_results("identity_terms", tmp_path, results.IdentityTermsResults) == res
    with pytest.raises(ValueError):
        results.chapter_results("both", res.terms, iw["words"], words)  # not a mode


def test_too_few_rms_give_no_counts_and_a_compute_run_no_items(tmp_path):
    per_item, items = identity.identity_items(elo=_elo(n_models=2))
    verdicts = identity.item_verdicts(items)
    elo = results.elo_results(items, verdicts, 2, {}, identity.axis_gaps(per_item))
    assert elo.n_below is None and elo.n_above_raw is None and elo.adjusted_by_bins == {} and not elo.has_interval
    assert elo.below == [] and elo.other_bins == [] and [w.row for w in elo.worst] == verdicts["worst"]["row"].tolist()
    iw = _words()
    iw.update(table=pd.DataFrame(), by_axis=pd.DataFrame())
    words = results.words(iw, "compute", "afinn")
    assert (words.n_terms, words.n_universe, words.by_valence, words.fragile) == (0, None, [], None)
    assert words.level == "token" and words.level_text == "word level" and words.human_source == "AFINN"
    res = results.chapter_results("compute", results.terms(_terms()), iw["words"], words)
    stored = read_results("identity_terms", write_results(res, tmp_path).parent)
    assert stored["elo"] is None and stored["words"]["n_terms"] == 0 and stored["mode"] == "compute"


def test_token_rows_count_the_spellings_far_apart():
    table = pd.DataFrame({"word": ["gay", "gay", "old"], "prompt_valence": ["positive", "negative", "positive"],
                          "gap": [1.0, 2.0, 3.0], "row": list("abc"), "token_pct_min": [0.0, 10.0, 50.0],
                          "token_pct_max": [30.0, 35.0, 60.0]})
    iw = {"table": table, "ranks": pd.DataFrame({"n_universe": [10, 30]}), "by_axis": pd.DataFrame(),
          "level": "token level"}
    words = results.words(iw, "compute", "warriner")
    assert words.fragile == results.Fragile(points=results.FRAGILE_POINTS, n_wide=1, n_rows=3)
    assert words.n_universe == 20 and words.n_terms == 2
    assert [(g.prompt_valence, g.gap, g.n_terms) for g in words.by_valence] == [("negative", 2.0, 1),
                                                                                ("positive", 2.0, 2)]
