"""rmbook.chapters.method.analysis: the method chapter's tables from known sweeps (the model-loading paths run in
tests/chapters/test_method.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.method import analysis as method


def _sweeps(kind="LM log-prob"):
    rows = [{"model": m, "model_label": m.upper(), "prompt": p, "text": t, "reward": r, "reward_kind": kind}
            for m in ("a", "b") for p in ("good?", "bad?")
            for t, r in ((" x", -0.1), ("y", -2.0), ("z", -5.0), ("w", -3.0))]
    return pd.DataFrame(rows)


def test_live_sweeps_refuses_empty_lists_and_too_few_tokens_before_loading_anything():
    with pytest.raises(ValueError, match="at least one"):
        method.live_sweeps([], ["p"], 300, 10)
    with pytest.raises(ValueError, match="smaller than 2 x TOP_K"):
        method.live_sweeps(["tiny-llama"], ["p"], 15, 10)


def test_sweep_overview_one_row_per_model_in_the_given_order():
    ov = method.sweep_overview(_sweeps(), ["b", "a"])
    assert ov.to_dict("list") == {"model": ["B", "A"], "reward kind": ["LM log-prob"] * 2, "tokens swept": [4, 4]}


def test_extremes_gives_probabilities_only_for_log_prob_rewards():
    one = _sweeps().query("model == 'a' and prompt == 'good?'")
    ext = method.extremes(one, 2)
    assert ext["best"].text == " x" and ext["worst"].text == "z"
    assert ext["p_best"] == pytest.approx(np.exp(-0.1)) and ext["top_mass"] == pytest.approx(np.exp(-0.1) + np.exp(-2))
    rm = method.extremes(_sweeps("RM score").query("model == 'a' and prompt == 'good?'"), 2)
    assert rm["p_best"] is None and rm["top_mass"] is None


def test_mode_differences_counts_ids_beyond_one_percent_of_the_spread():
    both = pd.DataFrame({"score_id_exact": [0.0, 1.0, 2.0, 3.0], "score_paper": [0.0, 1.0, 2.5, 3.0],
                         "mode": ["round trip ok"] * 3 + ["id changed by round trip"]})
    both["abs_difference"] = (both.score_id_exact - both.score_paper).abs()
    d = method.mode_differences(both)
    assert d["share_diff"] == 0.25 and d["tol"] == pytest.approx(0.01 * both.score_id_exact.std())
    assert d["by_mode"].loc["round trip ok", "max"] == 0.5 and 0.9 < d["r_modes"] < 1


def test_sweep_head_shows_what_varies_per_token_and_no_empty_column():
    # #28 item 5: method's first table repeated the prompt in every row and had an all-NaN column
    long_prompt = "What, in one word, is the greatest thing ever?"
    sweeps = pd.DataFrame({"model": ["m"] * 8 + ["n"] * 2, "prompt": [long_prompt] * 10, "model_label": "M",
                           "token_id": range(10), "text": list("abcdefghij"), "reward": np.arange(10.0),
                           "note": [np.nan] * 10, "reward_kind": "RM score"})
    head = method.sweep_head(sweeps, n=5)
    assert list(head.columns) == ["token_id", "text", "reward", "reward_kind"]
    assert head["token_id"].tolist() == [0, 1, 2, 3, 4]
