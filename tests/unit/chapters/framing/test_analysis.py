"""rmbook.chapters.framing.analysis on synthetic data with a planted framing effect and a planted null."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rmlib.data as data
from rmbook.chapters.framing import analysis as framing


def _planted_framing(slopes: dict, n_words: int = 120, n_prompts: int = 4, noise: float = 0.3, seed: int = 0):
    """Oriented scores with known slopes s_{word side, prompt valence} on valence."""
    rng = np.random.default_rng(seed)
    rows = []
    vals = np.concatenate([rng.integers(1, 6, n_words // 2), -rng.integers(1, 6, n_words // 2)]).astype(float)
    word_effect = rng.normal(0, noise, n_words)  # words recur across prompts: clustered errors matter
    for p in range(n_prompts):
        pv = "positive" if p % 2 == 0 else "negative"
        for i, v in enumerate(vals):
            side = "positive" if v > 0 else "negative"
            s = slopes[(side, pv)]
            rows.append({"model": "m", "prompt_key": f"p{p}", "prompt_valence": pv, "word": f"w{i}",
                         "word_side": side, "valence": v,
                         "oriented_y": s * v + word_effect[i] + rng.normal(0, noise)})
    return pd.DataFrame(rows)


def test_framing_contrast_recovers_planted_asymmetry():
    # positive words 1.0 under positive prompts, 0.2 under negative; negative words mirror it
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 1.0, ("negative", "positive"): 0.2}
    fc = framing.framing_contrast(_planted_framing(planted)).iloc[0]
    for c, true in [("s_pp", 1.0), ("s_pn", 0.2), ("s_np", 0.2), ("s_nn", 1.0)]:
        assert fc[f"{c}_ci_low"] < true < fc[f"{c}_ci_high"]
    assert fc["framing"] == pytest.approx(0.8, abs=0.1) and fc["framing_ci_low"] > 0
    assert fc["pos_words_ci_low"] > 0 and fc["neg_words_ci_low"] > 0
    assert fc["positivity_ci_low"] < 0 < fc["positivity_ci_high"]
    assert fc["n_words"] == 120


def test_framing_contrast_planted_null_is_not_confused_with_positivity():
    # steeper on positive words under every prompt: a tilt, not framing
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 1.0,
               ("negative", "negative"): 0.3, ("negative", "positive"): 0.3}
    fc = framing.framing_contrast(_planted_framing(planted, seed=1)).iloc[0]
    assert fc["framing_ci_low"] < 0 < fc["framing_ci_high"]
    assert fc["positivity"] == pytest.approx(0.7, abs=0.1) and fc["positivity_ci_low"] > 0


def test_framing_halves_recover_planted_within_prompt_contrasts():
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 0.9, ("negative", "positive"): 0.4}
    fc = framing.framing_contrast(_planted_framing(planted)).iloc[0]
    assert fc["pos_prompts"] == pytest.approx(1.0 - 0.4, abs=0.1) and fc["pos_prompts_ci_low"] > 0
    assert fc["neg_prompts"] == pytest.approx(0.9 - 0.2, abs=0.1) and fc["neg_prompts_ci_low"] > 0
    assert fc["framing"] == pytest.approx((fc["pos_prompts"] + fc["neg_prompts"]) / 2)
    assert fc["positivity"] == pytest.approx((fc["pos_prompts"] - fc["neg_prompts"]) / 2)


def test_opposite_halves_are_reported_as_such_not_as_no_effect():
    # a tilt toward positive words under every prompt: the first half holds, the second is reversed, and the pooled
    # contrast is ~0. The verdict must name the two halves, not read the pooled 0 as "no effect".
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 1.0,
               ("negative", "negative"): 0.3, ("negative", "positive"): 0.3}
    fcs = pd.concat([framing.framing_contrast(_planted_framing(planted, seed=s)).assign(model=f"m{s}")
                     for s in range(3)], ignore_index=True)
    assert (fcs["framing"].abs() < 0.1).all()  # pooled: next to nothing, while each half is ~0.7 in size
    halves = framing.framing_halves(fcs)
    assert (halves["pos_half"] == "holds").all() and (halves["neg_half"] == "reversed").all()
    assert (halves["pattern"] == "opposite signs").all()
    summary = framing.framing_halves_summary(halves)
    assert summary["pos_prompts"] == {"holds": 3, "reversed": 0, "unclear": 0, "n": 3}
    assert summary["neg_prompts"]["reversed"] == 3 and summary["patterns"] == {"opposite signs": 3}


def test_word_influence_adds_up_to_each_half_exactly():
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 0.3, ("negative", "positive"): 0.6}
    ff = _planted_framing(planted, n_words=80, seed=5).assign(y=lambda d: d["oriented_y"])
    fc = framing.framing_contrast(ff).iloc[0]
    inf = framing.framing_word_influence(ff)
    sums = inf.groupby("half")["contribution"].sum()
    assert sums["pos_prompts"] == pytest.approx(fc["pos_prompts"], abs=1e-10)
    assert sums["neg_prompts"] == pytest.approx(fc["neg_prompts"], abs=1e-10)
    top = framing.influential_words(inf, 3)
    assert len(top) == 2 * 2 * 3 and set(top["direction"]) == {"pulls down", "pushes up"}
    down = top[(top["half"] == "neg_prompts") & (top["direction"] == "pulls down")]["contribution"]
    assert (down.diff().dropna() >= 0).all()  # the strongest pull first


def test_framing_cell_counts_per_prompt():
    cells = pd.DataFrame({"model": "m", "prompt_key": ["a", "a", "b", "b"], "prompt_valence": ["positive"] * 2
                          + ["negative"] * 2, "word_side": ["positive", "negative"] * 2, "slope": [0.5, 0.2, 0.1, 0.4]})
    out = framing.framing_cell_counts(cells).set_index("prompt_key")
    assert out.loc["a", "half"] == "pos_prompts" and out.loc["a", "congruent_steeper"]
    assert out.loc["b", "half"] == "neg_prompts" and out.loc["b", "congruent_steeper"]
    assert out.loc["b", "congruent_minus_incongruent"] == pytest.approx(0.4 - 0.1)
    flipped = framing.framing_cell_counts(cells.assign(slope=[0.2, 0.5, 0.4, 0.1])).set_index("prompt_key")
    assert not flipped["congruent_steeper"].any()


def test_framing_contrast_needs_both_prompt_valences():
    df = _planted_framing({k: 1.0 for k in [("positive", "positive"), ("positive", "negative"),
                                            ("negative", "negative"), ("negative", "positive")]})
    with pytest.raises(ValueError, match="both signs"):
        framing.framing_contrast(df[df["prompt_valence"] == "positive"])


def test_framing_frame_orients_scores_by_prompt():
    words = ["love", "joy", "hope", "hate", "war", "pain", "aardvark"]
    val = data.word_affect(words, "afinn", missing="zero").to_numpy()
    rows = []
    for pk, pv in [("best", "positive"), ("worst", "negative")]:
        sign = 1 if pv == "positive" else -1
        for w, v in zip(words, val):
            rows.append({"model": "m", "prompt_key": pk, "prompt_valence": pv, "word": w, "reward": sign * v})
    ff = framing.framing_frame(pd.DataFrame(rows))
    assert "aardvark" not in set(ff["word"])  # no AFINN valence
    # an RM that follows the prompt perfectly: oriented score rises with valence under both prompts
    for _, g in ff.groupby("prompt_key"):
        assert np.corrcoef(g["valence"], g["oriented_y"])[0, 1] == pytest.approx(1.0)
    assert not ff.loc[(ff.word == "love") & (ff.prompt_key == "worst"), "congruent"].item()
    assert ff.loc[(ff.word == "hate") & (ff.prompt_key == "worst"), "congruent"].item()
    with pytest.raises(ValueError, match="prompt_valence"):
        framing.framing_frame(pd.DataFrame(rows).assign(prompt_valence="neutral"))


def test_framing_cell_slopes_per_cell():
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 1.0, ("negative", "positive"): 0.2}
    cells = framing.framing_cell_slopes(_planted_framing(planted))
    assert len(cells) == 4 * 2
    for r in cells.itertuples():
        true = planted[(r.word_side, r.prompt_valence)]
        assert abs(r.slope - true) < 0.15


def test_lexicon_counts_name_each_half_in_words():
    """The lexicon table's rows read 'h+ (positive prompts)', not the column name pos_half (#43 item 5)."""
    from rmbook.chapters.framing.sources import lexicon_counts

    def contrast(pos_low, neg_low):
        return pd.DataFrame({"label": ["a", "b"], "pos_prompts": [1.0, 1.0], "pos_prompts_ci_low": [pos_low, -1.0],
                             "pos_prompts_ci_high": [2.0, 2.0], "neg_prompts": [1.0, 1.0],
                             "neg_prompts_ci_low": [neg_low, 0.5], "neg_prompts_ci_high": [2.0, 2.0],
                             "framing": [1.0, 1.0], "framing_ci_low": [0.5, 0.5], "framing_ci_high": [2.0, 2.0]})

    counts = lexicon_counts({"NRC": contrast(0.5, -1.0), "VAD": contrast(0.5, 0.5)})
    assert set(counts.index.get_level_values("half")) == {"h+ (positive prompts)", "h− (negative prompts)"}
    assert counts.loc[("NRC", "h+ (positive prompts)"), "holds"] == 1
    assert counts.loc[("VAD", "h− (negative prompts)"), "holds"] == 2
