"""rmlib.analysis.implicit: MWLR and DPO log-ratios from known values, and implicit-reward tables."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import implicit
from rmlib.data import LM_LOGPROB
import rmlib.data as data


PROMPTS = ["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"]


VALENCE = {"best_ever_one": "positive", "greatest_ever_one": "positive", "worst_ever_one": "negative",
           "bad_ever_one": "negative"}


def test_mwlr_matches_its_definition_on_known_values():
    p1, p2 = 0.5, 0.25
    assert implicit.mwlr(np.log(p1), np.log(p2)) == pytest.approx(0.5 * (p1 + p2) * np.log(2))
    assert implicit.mwlr(np.log(0.1), np.log(0.1)) == 0.0


def test_mwlr_sign_and_antisymmetry():
    rng = np.random.default_rng(1)
    a, b = -rng.exponential(3, 500), -rng.exponential(3, 500)
    m = implicit.mwlr(a, b)
    assert np.array_equal(np.sign(m), np.sign(a - b))            # positive = first model likes the word more
    np.testing.assert_allclose(implicit.mwlr(b, a), -m)                  # antisymmetric
    # mixture weighting: the same log ratio counts more where the words are more probable
    assert abs(implicit.mwlr(np.log(0.2), np.log(0.1))) > abs(implicit.mwlr(np.log(0.002), np.log(0.001)))


def test_mwlr_of_multitoken_words_uses_summed_logprobs():
    tok1 = np.log([0.5, 0.2]), np.log([0.4, 0.1])                  # two tokens under each model
    got = implicit.mwlr(tok1[0].sum(), tok1[1].sum())
    p1, p2 = 0.5 * 0.2, 0.4 * 0.1
    assert got == pytest.approx(0.5 * (p1 + p2) * (np.log(p1) - np.log(p2)))


def test_mwlr_and_dpo_reject_bad_input():
    with pytest.raises(ValueError, match="log-probabilities"):
        implicit.mwlr([1.5], [-1.0])
    with pytest.raises(ValueError, match="shape"):
        implicit.mwlr([-1.0, -2.0], [-1.0])
    with pytest.raises(ValueError, match="beta"):
        implicit.dpo_log_ratio([-1.0], [-2.0], beta=0)
    np.testing.assert_allclose(implicit.dpo_log_ratio([-1.0, -3.0], [-2.0, -2.0], beta=0.5), [0.5, -0.5])


def synthetic_scores(n_per_family=4, n_words=30, effect=0.0, seed=0, families=("Gemma", "Llama"),
                     kind="RM score"):
    """Long table: Gemma models score Agency words ``effect`` higher under positive prompts."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_words)]
    cats = ["Agency" if i % 2 == 0 else "Communion" for i in range(n_words)]
    rows = []
    for fam in families:
        for j in range(n_per_family):
            m = f"{fam.lower()}-{j}"
            base = rng.normal(0, 1, n_words)  # the model's own taste, shared by its prompts
            for pk in PROMPTS:
                s = base + rng.normal(0, 0.5, n_words)
                if fam == families[0] and VALENCE[pk] == "positive":
                    s = s + effect * np.array([c == "Agency" for c in cats])
                for w, c, v in zip(words, cats, s):
                    rows.append((m, m, fam, kind, pk, pk, VALENCE[pk], w, c, v))
    return pd.DataFrame(rows, columns=["model", "nickname", "family", "reward_kind", "prompt_key", "prompt",
                                       "valence", "word", "category", "reward"])


def lm_table():
    d = pd.concat([synthetic_scores(n_per_family=1, families=("Gemma",), kind=LM_LOGPROB),
                   synthetic_scores(n_per_family=1, families=("Llama",), kind=LM_LOGPROB, seed=5),
                   synthetic_scores(n_per_family=1, families=("Qwen",), kind=LM_LOGPROB, seed=6)])
    d["reward"] = -np.abs(d["reward"]) - 1.0                      # log-probs are negative
    d["adjective"] = d["superlative"] = d["phrasing"] = "x"
    return d


def test_implicit_reward_scores_shape_and_values():
    d = lm_table()
    out = implicit.implicit_reward_scores(d, [("gemma-0", "llama-0"), ("gemma-0", "qwen-0")])
    assert len(out) == 2 * len(PROMPTS) * 30
    assert set(out["model"]) == {"MWLR(gemma-0‖llama-0)", "MWLR(gemma-0‖qwen-0)"}
    assert set(out["family"]) == {"Gemma−Llama", "Gemma−Qwen"} and (out["reward_kind"] == data.MWLR_KIND).all()
    g = d[d["model"] == "gemma-0"].set_index(["prompt_key", "word"])["reward"]
    l_ = d[d["model"] == "llama-0"].set_index(["prompt_key", "word"])["reward"]
    row = out[out["model"] == "MWLR(gemma-0‖llama-0)"].iloc[7]
    key = (row["prompt_key"], row["word"])
    assert row["reward"] == pytest.approx(implicit.mwlr(g[key], l_[key]))
    assert list(out.columns[:4]) == ["model", "nickname", "family", "reward_kind"]


def test_implicit_reward_scores_bad_input():
    d = lm_table()
    with pytest.raises(ValueError, match="compares a model with itself"):
        implicit.implicit_reward_scores(d, [("gemma-0", "gemma-0")])
    with pytest.raises(ValueError, match="not in the log-prob table"):
        implicit.implicit_reward_scores(d, [("gemma-0", "nope")])
    with pytest.raises(ValueError, match="instruct model and its own base"):
        implicit.implicit_reward_scores(d, [("gemma-0", "llama-0")], kind="dpo")
    rm = d.assign(reward_kind="RM score")
    with pytest.raises(ValueError, match="need LM log-probs"):
        implicit.implicit_reward_scores(rm, [("gemma-0", "llama-0")])
