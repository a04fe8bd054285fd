"""rmlib.value_profiles on synthetic data with known answers, and the template the LM log-probs are taken under."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import rmlib.data as data
from rmlib.analysis import implicit
from rmlib.analysis import values as vp
from rmlib.models import instruct_evidence
from rmlib.report import prose
from rmlib.data import LM_LOGPROB
from rmlib.models import LoadOptions, load_model
from rmlib.engine import score_answers
from rmlib.models.templates import answer_slot

PROMPTS = ["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"]
VALENCE = {"best_ever_one": "positive", "greatest_ever_one": "positive", "worst_ever_one": "negative",
           "bad_ever_one": "negative"}


# --------------------------------------------------------------------------- MWLR and DPO ratio

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


# --------------------------------------------------------------------------- synthetic long tables

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


def test_planted_family_effect_is_detected_end_to_end():
    # 5 vs 5 models: 252 relabellings, smallest two-sided p = 2/252, so FDR over 4 panels can reject
    res = vp.family_analysis(synthetic_scores(n_per_family=5, effect=3.0), n_resamples=999)
    perm = res["permutation"].set_index(["category", "valence"])
    assert res["unit"] == "model"
    hit = perm.loc[("Agency", "positive")]
    assert hit["reject"] and hit["mean_a"] < hit["mean_b"]       # Gemma ranks Agency higher (nearer rank 1)
    assert not perm.loc[("Agency", "negative"), "reject"] and not perm.loc[("Communion", "negative"), "reject"]
    eff = res["effects"].set_index(["category", "valence"]).loc[("Agency", "positive")]
    assert eff["ci_high"] < 0                                      # CI of Hedges' g excludes zero, right sign
    s = vp.summarise(res)
    assert s["n_significant_fdr"] >= 1 and s["models_per_family"] == {"Gemma": 5, "Llama": 5}
    assert s["min_attainable_p"] == pytest.approx(2 / 252)
    assert "significant" in prose.findings_markdown(res, label="synthetic")


def test_no_effect_gives_no_fdr_rejection_and_plain_prose():
    res = vp.family_analysis(synthetic_scores(effect=0.0, seed=3), n_resamples=999)
    assert not res["permutation"]["reject"].any()
    assert "no panel shows a significant" in prose.findings_markdown(res, label="null")


def test_anova_and_mixed_model_degrees_of_freedom_match_design():
    res = vp.family_analysis(synthetic_scores(n_per_family=3), n_resamples=99)
    a = res["anova"].set_index("term")
    n_models, n_prompts, n_cats, n_val = 6, len(PROMPTS), 2, 2
    assert a.loc["category", "df"] == n_cats - 1 and a.loc["valence", "df"] == n_val - 1
    assert a.loc["model", "df"] == n_models - 1
    assert a.loc["category:valence:model", "df"] == (n_cats - 1) * (n_val - 1) * (n_models - 1)
    n_rows = n_models * n_prompts * n_cats                     # median ranks: model x prompt x category
    assert a.loc["Residual", "df"] == n_rows - n_models * n_cats * n_val
    # The random-intercept fit on ranks can be singular (ranks fix each model's mean); then it is reported, not hidden.
    if res["mixed"] is None:
        assert any(n.startswith("mixed model skipped") for n in res["notes"])
    else:
        assert res["mixed"].attrs["n_groups"] == n_models and len(res["mixed"]) == 8  # 2x2x2 fixed effects
    assert "F(1, " in prose.anova_sentence(res, "category")


def test_one_model_per_family_falls_back_to_prompts_and_says_so():
    res = vp.family_analysis(synthetic_scores(n_per_family=1), n_resamples=99)
    assert res["unit"] == "prompt" and res["mixed"] is None
    assert any("particular models" in n for n in res["notes"])
    assert "compare these particular models" in prose.findings_markdown(res, label="one each")


def test_family_analysis_bad_input():
    with pytest.raises(ValueError, match="families"):
        vp.family_analysis(synthetic_scores(), families=("Gemma", "Qwen"))
    with pytest.raises(ValueError, match="by must"):
        vp.family_analysis(synthetic_scores(), by=("category",))


def test_word_contrast_null_rate_and_planted_category_effect():
    rng = np.random.default_rng(0)
    rejections = []
    for seed in range(60):
        d = synthetic_scores(n_per_family=1, n_words=24, seed=seed, families=("Gemma",))
        res = vp.word_contrast(d, panels=("valence",), n_resamples=199, seed=seed)
        rejections.append((res["p"] < 0.05).mean())
    # two panels x 60 seeds: the raw false-positive rate stays near 5% (binomial sd about 2%)
    assert np.mean(rejections) < 0.12
    d = synthetic_scores(n_per_family=1, n_words=24, seed=1, families=("Gemma",), effect=4.0)
    res = vp.word_contrast(d, panels=("valence",), n_resamples=999).set_index("valence")
    assert res.loc["positive", "reject"] and res.loc["positive", "g_ci_high"] < 0
    del rng


# --------------------------------------------------------------------------- implicit-reward tables

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


def test_design_prompts_validation():
    assert len(data.design_prompts(None)) == 54
    with pytest.raises(ValueError, match="not factorial-54 keys"):
        data.design_prompts(["best_ever_one", "nice_ever_one"])
    with pytest.raises(ValueError, match="both"):
        data.design_prompts(["best_ever_one", "greatest_ever_one"])


# --------------------------------------------------------------------------- compute mode, real plumbing

def test_compute_scores_shape_with_tiny_models(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    words = ["accuracy", "ambition", "affection", "alliance"]
    out = vp.compute_value_scores(["tiny-gemma3", "tiny-llama"], "big2", prompt_keys=PROMPTS, words=words,
                                  load=LoadOptions(dtype="float32"))
    assert len(out) == 2 * len(PROMPTS) * len(words)
    assert set(out["family"]) == {"Gemma", "Llama"} and (out["reward_kind"] == LM_LOGPROB).all()
    assert (out["reward"] < 0).all() and (out["n_tokens"] >= 1).all()
    assert set(out["category"]) == {"Agency", "Communion"}
    with pytest.raises(ValueError, match="not in the big2 lexicon"):
        vp.compute_value_scores(["tiny-llama"], "big2", prompt_keys=PROMPTS, words=["zzzz"])


@torch.inference_mode()
def test_lm_logprobs_and_rm_scores_share_one_conversation_template(tmp_path):
    """score_answers puts a word in the same templated answer slot for an LM (summed log-prob) and an RM (reward)."""
    prompt = "What, in one word, is the greatest thing ever?"
    words = ["kindness", "music family"]                      # the second is several tokens
    lm = load_model("tiny-llama", head="lm", dtype="float32")
    rm = load_model("tiny-llama", head="rm", dtype="float32", allow_untrained_head=True)  # arithmetic check only
    slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)
    assert slot == answer_slot(rm.tokenizer, prompt, rm.chat_template)
    assert "<|start_header_id|>" in lm.tokenizer.decode(slot.prefix_ids)   # the chat template is applied
    lp = score_answers(lm, [prompt], words, cache_root=tmp_path, progress=False)
    sc = score_answers(rm, [prompt], words, cache_root=tmp_path, progress=False)
    for w, got_lp, got_sc in zip(words, lp["logprob"], sc["score"]):
        ids = lm.tokenizer(w, add_special_tokens=False).input_ids
        assert len(ids) > 1 or w == "kindness"
        full = list(slot.prefix_ids) + ids
        logp = torch.log_softmax(lm.model(torch.tensor([full])).logits[0].float(), -1)
        want = sum(float(logp[len(slot.prefix_ids) - 1 + k, t]) for k, t in enumerate(ids))
        assert got_lp == pytest.approx(want, abs=1e-4)
        want_rm = float(rm.model(torch.tensor([slot.ids_for(ids)])).logits[0, 0])
        assert got_sc == pytest.approx(want_rm, abs=1e-4)
        # the bare prompt without the template gives a different number, so the check above has teeth
        bare = lm.tokenizer(prompt).input_ids + ids
        logp_bare = torch.log_softmax(lm.model(torch.tensor([bare])).logits[0].float(), -1)
        other = sum(float(logp_bare[len(bare) - len(ids) - 1 + k, t]) for k, t in enumerate(ids))
        assert abs(other - want) > 1e-3


def test_embedded_base_and_instruct_checked_from_metadata():
    ev = {m: instruct_evidence(m) for m in ("gemma3-270m", "smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct")}
    assert ev["gemma3-270m"]["verdict"] == "base" and ev["gemma3-270m"]["chat_template_shipped"] is False
    assert ev["smollm2-135m-instruct"]["verdict"] == "instruct" and ev["smollm2-135m-instruct"]["chat_template_shipped"]
    assert ev["qwen2.5-coder-0.5b-instruct"]["verdict"] == "instruct"
    assert "instruct" in ev["qwen2.5-coder-0.5b-instruct"]["gguf_finetune"].lower()
