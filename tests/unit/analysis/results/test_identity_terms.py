"""rmlib.analysis.results.identity_terms: the chapter's results built from planted item and word scores, stored and
read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import identity
from rmlib.analysis.results import identity_terms as results
from rmlib.storage import read_results, write_results


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
    return pd.DataFrame({"term": ["gay", "catholic", "elderly"], "pejorative_in_some_uses": [True, False, False]})


def test_the_results_of_planted_scores_are_typed_and_read_back(tmp_path):
    elo = _elo()
    per_item, items = identity.identity_items(elo=elo)
    verdicts = identity.item_verdicts(items)
    sensitivity = identity.bin_sensitivity(bins=(10, 20), elo=elo)
    res = results.chapter_results("published", _terms(), _words(),
                                  results.elo_results(items, verdicts, 4, sensitivity, identity.axis_gaps(per_item)))
    assert res.elo.n_items == 3 and res.elo.n_below == len(verdicts["below"]) and res.elo.human_bins == 20
    assert set(res.elo.adjusted_by_bins) == {"10", "20"} and "row" not in res.elo.items[0]
    assert res.words.level == "word" and res.words.n_universe == 8 and "row" not in res.words.rows[0]
    assert res.models == ["a", "b"] and res.reward_kinds == ["RM score"] and (res.n_terms, res.n_flagged) == (3, 1)
    write_results(res, tmp_path)
    assert read_results("identity_terms", tmp_path, results.IdentityTermsResults) == res
    with pytest.raises(ValueError):
        results.chapter_results("both", _terms(), _words())  # not a mode


def test_too_few_rms_give_no_counts_and_a_compute_run_no_items(tmp_path):
    per_item, items = identity.identity_items(elo=_elo(n_models=2))
    elo = results.elo_results(items, identity.item_verdicts(items), 2, {}, identity.axis_gaps(per_item))
    assert elo.n_below is None and elo.n_above_raw is None and elo.adjusted_by_bins == {}
    words = _words()
    words.update(table=pd.DataFrame(), by_axis=pd.DataFrame())
    res = results.chapter_results("compute", _terms(), words)
    assert res.elo is None and res.words is None
    stored = read_results("identity_terms", write_results(res, tmp_path).parent)
    assert stored["elo"] is None and stored["words"] is None and stored["mode"] == "compute"
