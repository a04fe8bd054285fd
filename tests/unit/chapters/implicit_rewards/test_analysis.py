"""rmbook.chapters.implicit_rewards.analysis: MWLR and DPO log-ratios from known values, and implicit-reward tables."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rmlib.data as data
from rmbook.chapters.implicit_rewards import analysis as implicit
from rmlib.data import LM_LOGPROB


PROMPTS = ["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"]  # as in the family_scores fixture



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


def lm_table(family_scores):
    d = pd.concat([family_scores(n_per_family=1, families=("Gemma",), kind=LM_LOGPROB),
                   family_scores(n_per_family=1, families=("Llama",), kind=LM_LOGPROB, seed=5),
                   family_scores(n_per_family=1, families=("Qwen",), kind=LM_LOGPROB, seed=6)])
    d["reward"] = -np.abs(d["reward"]) - 1.0                      # log-probs are negative
    d["adjective"] = d["superlative"] = d["phrasing"] = "x"
    return d


def test_implicit_reward_scores_shape_and_values(family_scores):
    d = lm_table(family_scores)
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


def test_implicit_reward_scores_bad_input(family_scores):
    d = lm_table(family_scores)
    with pytest.raises(ValueError, match="compares a model with itself"):
        implicit.implicit_reward_scores(d, [("gemma-0", "gemma-0")])
    with pytest.raises(ValueError, match="not in the log-prob table"):
        implicit.implicit_reward_scores(d, [("gemma-0", "nope")])
    with pytest.raises(ValueError, match="instruct model and its own base"):
        implicit.implicit_reward_scores(d, [("gemma-0", "llama-0")], kind="dpo")
    rm = d.assign(reward_kind="RM score")
    with pytest.raises(ValueError, match="need LM log-probs"):
        implicit.implicit_reward_scores(rm, [("gemma-0", "llama-0")])


def _sweeps():
    """Two models x one prompt; model b's logits carry a larger offset (log-sum-exp) than model a's."""
    rows = []
    for m, offset in (("a", 1.0), ("b", 5.0)):
        for i, lp in enumerate([-0.5, -1.0, -2.0, -3.0, -4.0, -6.0]):
            rows.append({"model": m, "prompt_key": "best", "token_id": i, "text": ["x", " y", "z", " ", "w", "v"][i],
                         "is_special": i == 5, "logprob": lp + (0.3 * i if m == "b" else 0.0),
                         "logit": lp + offset + (0.3 * i if m == "b" else 0.0), "reward_kind": LM_LOGPROB})
    return pd.DataFrame(rows)


def test_top_bottom_tokens_skips_special_and_blank_tokens_and_ranks_each_end():
    tb = implicit.top_bottom_tokens(_sweeps(), 2)
    a = tb[tb["model"] == "a"]
    assert list(a.loc[a["end"] == "top", "text"]) == ["x", " y"]
    assert list(a.loc[a["end"] == "bottom", "text"]) == ["w", "z"]        # ' ' is blank, 'v' special: left out
    assert list(a["rank"]) == [1, 2, 1, 2] and list(tb.index) == list(range(len(tb)))
    wide = implicit.top_bottom_wide(a)
    assert list(wide.columns) == ["top text", "top logprob", "top logit", "bottom text", "bottom logprob",
                                  "bottom logit"]
    assert wide.loc[1, "bottom text"] == "w"


def test_logit_logprob_agreement_same_ranking_within_a_model_but_not_pooled():
    s = _sweeps()
    within = implicit.logit_logprob_agreement(s)
    assert within.set_index("model")["logsumexp"].to_dict() == pytest.approx({"a": 1.0, "b": 5.0})
    assert (within["offset_spread"] < 1e-12).all() and np.allclose(within["kendall_tau_logit_vs_logprob"], 1.0)
    assert implicit.pooled_top_tau(implicit.top_bottom_tokens(s, 2)) < 0.999   # the offsets differ across models


def test_families_with_base_and_instruct_needs_both_verdicts_in_one_family():
    ev = pd.DataFrame({"family": ["Gemma", "Gemma", "Llama", "Qwen"],
                       "verdict": ["base", "instruct", "instruct", "unknown (tiny random model)"]})
    assert implicit.families_with_base_and_instruct(ev) == ["Gemma"]
    assert implicit.families_with_base_and_instruct(ev[ev["family"] != "Gemma"]) == []


def test_mean_zipf_frequent_words_score_higher_than_rare_ones():
    assert implicit.mean_zipf(["the", "of"]) > 6 > 3 > implicit.mean_zipf(["zyzzyva"])


def test_require_lms_refuses_a_reward_model():
    from rmlib.registry import paper_rms
    implicit.require_lms(["tiny-llama"])
    with pytest.raises(ValueError, match="RM_MODELS"):
        implicit.require_lms(["tiny-llama", paper_rms()["id"].iloc[0]])


def test_valence_summary_and_family_panel():
    tests = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "valence": ["positive", "negative"] * 2,
                          "hedges_g": [-0.5, 0.4, 0.2, -0.1], "reject": [True, False, False, False],
                          "g_ci_low": [-1, 0, -1, -1], "g_ci_high": [0, 1, 1, 1], "p_fdr": [0.01, 0.2, 0.5, 0.6]})
    assert implicit.valence_summary(tests) == {"n_panels": 4, "n_significant_fdr": 1, "valence_consistent": 2}
    scores = pd.DataFrame({"model": ["m1", "m2"], "family": ["Gemma−Llama", "Gemma"]})
    assert implicit.family_panel(tests, scores, "Gemma−Llama")["hedges_g"] == -0.5
    assert implicit.family_panel(tests, scores, "Qwen") is None


def test_published_top_answers_and_their_list():
    elo = pd.DataFrame({"model": ["r1"] * 3 + ["r2"] * 3, "prompt_key": ["greatest"] * 5 + ["worst"],
                        "item": ["a", "b", "c", "d", "e", "f"], "reward": [1, 3, 2, 5, 4, 9]})
    top = implicit.published_top_answers(elo, "greatest", 2)
    assert top.groupby("model")["item"].apply(list).to_dict() == {"r1": ["b", "c"], "r2": ["d", "e"]}
    assert implicit.top_answers_list(top, 1).iloc[:, 0].to_dict() == {"r1": "b", "r2": "d"}
