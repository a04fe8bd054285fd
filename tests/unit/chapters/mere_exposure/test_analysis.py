"""rmbook.chapters.mere_exposure.analysis on synthetic data with a planted frequency effect and a planted null."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.mere_exposure import analysis as exposure


def _planted_exposure(b_pos: float, b_neg: float, n_words: int = 300, n_prompts: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    zipf = rng.uniform(2, 6, n_words)
    val = rng.integers(-3, 4, n_words).astype(float)
    word_effect = rng.normal(0, 0.5, n_words)
    rows = []
    for p in range(n_prompts):
        pv = "positive" if p % 2 == 0 else "negative"
        sign = 1 if pv == "positive" else -1
        b = b_pos if pv == "positive" else b_neg
        y = b * zipf + 0.3 * sign * val + word_effect + rng.normal(0, 0.5, n_words)
        rows.append(pd.DataFrame({"model": "m", "prompt_key": f"p{p}", "prompt_valence": pv, "word": np.arange(n_words),
                                  "zipf": zipf, "valence": val, "y": y}))
    return pd.concat(rows, ignore_index=True)


def test_pooled_frequency_slopes_planted_effect_and_null():
    out = exposure.pooled_frequency_slopes(_planted_exposure(0.4, 0.0), "zipf").iloc[0]
    assert out["slope_positive_ci_low"] < 0.4 < out["slope_positive_ci_high"] and out["slope_positive_ci_low"] > 0
    assert out["slope_negative_ci_low"] < 0 < out["slope_negative_ci_high"]  # planted null under negative prompts
    assert out["difference"] == pytest.approx(0.4, abs=0.1)


def test_shuffled_baseline_centres_on_half_and_planted_share_is_high():
    """Cells share their words, so the word-level shuffle moves all cells together: its mean is about 1/2 whatever
    the data, while a planted slope puts every cell positive and a planted null about half."""
    from rmlib.stats import cell_slopes, share_positive, shuffled_share_baseline

    for b in (0.3, 0.0):
        d = _planted_exposure(b, b, n_prompts=10, seed=3)
        cells = cell_slopes(d, y="y", x="zipf", covariates=["valence"], groups=["model", "prompt_key"])
        null = shuffled_share_baseline(d, y="y", x="zipf", covariates=["valence"], groups=["model", "prompt_key"],
                                       n_shuffles=200, seed=0)
        assert 0.35 < null.mean() < 0.65
        share = share_positive(cells)["share"]
        assert share == 1.0 if b else 0.1 <= share <= 0.9


def test_exposure_shares_split_by_valence_with_baselines():
    # a frequency effect under positive prompts only
    d = _planted_exposure(0.4, -0.4, n_prompts=8, seed=2).rename(columns={"zipf": "zipf_x"}).assign(label="m")
    cells, table = exposure.exposure_shares(d, ["x"], n_shuffles=50)
    t = table.set_index("prompts")
    assert t.loc["positive", "share"] == 1.0 and t.loc["negative", "share"] == 0.0 and t.loc["all", "share"] == 0.5
    assert t.loc["positive", "n_cells"] == 4 and np.isnan(t.loc["all", "null_mean"])
    assert 0 <= t.loc["negative", "null_low"] <= t.loc["negative", "null_high"] <= 1
    assert len(cells) == 8 and set(cells["source"]) == {"x"}
    groups = exposure.exposure_by_group(d.assign(dictionary=np.where(d["word"] % 2, "big2", "mfd2")), ["x"],
                                       "dictionary", {"odd": ["big2"], "even": ["mfd2"]})
    assert set(zip(groups["dictionary"], groups["prompts"])) == {(g, pv) for g in ("odd", "even")
                                                                 for pv in ("positive", "negative")}
    assert (groups.loc[groups["prompts"] == "positive", "share"] == 1.0).all()


def test_exposure_frame_joins_frequency_and_valence():
    scores = pd.DataFrame({"model": "m", "prompt_key": "p", "word": ["love", "hate", "the", "qzxqzxq", "kettle"],
                           "reward": [3.0, -1.0, 0.5, 0.0, 0.2]})
    e = exposure.exposure_frame(scores).set_index("word")
    assert e.loc["love", "valence"] > 0 > e.loc["hate", "valence"] and e.loc["kettle", "valence"] == 0  # AFINN: 0
    assert np.isnan(e.loc["qzxqzxq", "zipf_wordfreq"]) and np.isnan(e.loc["kettle", "zipf_bnc"])
    assert e.loc["the", "zipf_wordfreq"] > e.loc["love", "zipf_wordfreq"]
    assert abs(e["y"].mean()) < 1e-12
    w = exposure.exposure_frame(scores, valence_source="warriner").set_index("word")
    assert np.isnan(w.loc["qzxqzxq", "valence"])  # Warriner: unlisted stays missing


def test_token_exposure_frame_keeps_word_like_tokens_only():
    ts = pd.DataFrame({"model": "m", "prompt_key": "p", "token_id": range(6),
                       "text": [" Love", "love", "!!", "123", " don't", "\n"], "reward": [1.0, 2, 3, 4, 5, 6]})
    t = exposure.token_exposure_frame(ts)
    assert t["word"].tolist() == ["love", "love", "don't"]
    assert t["zipf_wordfreq"].notna().all()
    with pytest.raises(ValueError, match="word-like"):
        exposure.token_exposure_frame(ts.iloc[2:4])
