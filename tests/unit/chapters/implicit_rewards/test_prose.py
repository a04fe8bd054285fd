"""templates/implicit_rewards.md.j2: the implicit-rewards chapter's sentences follow the numbers they are given,
rendered from sections built by rmbook.chapters.implicit_rewards.results on small planted inputs."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.implicit_rewards import results
from rmbook.report.prose import render


def _r(part: str, s) -> str:
    return render("implicit_rewards", part, s=s)


def test_instruct_evidence_says_whether_a_dpo_pair_exists():
    ev = pd.DataFrame({"model": ["g-it"], "family": ["Gemma"], "verdict": ["instruct"], "chat_template_shipped": [True],
                       "gguf_name": ["Gemma It"], "gguf_finetune": [None], "registry_says": ["unknown"]})
    none = _r("instruct_evidence", results.instruct_evidence(ev, []))
    assert "- **g-it** (Gemma): **instruct** — chat template shipped: True; GGUF name 'Gemma It'\n\n" in none
    assert "registry says" not in none and "here: **none**" in none and "cannot be computed" in none
    assert "here: Gemma. Pass such a pair" in _r("instruct_evidence", results.instruct_evidence(ev, ["Gemma"]))
    two = _r("instruct_evidence", results.instruct_evidence(pd.concat([ev, ev.assign(model="b")]), []))
    assert "'Gemma It'\n- **b** (Gemma)" in two  # a tight list, one line per model


def test_logit_logprob_follows_the_pooled_tau():
    within = pd.DataFrame({"logsumexp": [1.0, 5.0], "offset_spread": [1e-7, 2e-7],
                           "kendall_tau_logit_vs_logprob": [1.0, 0.99991]})
    apart = _r("logit_logprob", results.logit_logprob(within, 0.5, 2))
    assert "disagree (τ = 0.50)" in apart and "from 1.0 to 5.0" in apart and "largest spread 2e-07" in apart
    agree = _r("logit_logprob", results.logit_logprob(within, 1.0, 2))
    assert "agree here (τ = 1.00)" in agree and "at least 0.9999" in agree and "all 2 models" in agree


def test_mfd2_valence_counts_significant_and_consistent_panels():
    tests = pd.DataFrame({"valence": ["positive", "positive", "negative"], "hedges_g": [-0.3, 0.2, 0.5],
                          "reject": [True, False, True]})
    s = results.valence_summary(tests)
    assert (s.n_panels, s.n_significant_fdr, s.valence_consistent) == (3, 2, 2)
    text = _r("mfd2_valence", s)
    assert text.startswith("2 of 3 panels") and "holds in 1 of 2 positive and 1 of 1 negative" in text


def test_lexicon_prompt_and_zipf_sentences():
    scores = pd.DataFrame({"word": ["a", "b", "a"], "prompt_key": ["p", "p", "q"]})
    imp = pd.DataFrame({"model": ["MWLR(x‖y)", "MWLR(x‖y)"]})
    assert _r("lexicon_scores", results.lexicon_scores("big2", scores, imp, 3)) == \
        "**big2**: 2 words × 2 prompts × 3 LMs; implicit rewards: MWLR(x‖y)"
    subset = _r("design_prompts", results.design(["best_ever_one", "worst_ever_one"]))
    assert subset.startswith("Design prompts: 2 of the 54 prompts (adjectives best | worst; superlative ever; "
                             "phrasing one): a subset of the 54")
    from rmlib.data import design_prompts
    full = _r("design_prompts", results.design(list(design_prompts()["prompt_key"])))
    assert full.endswith("phrasing one, single, please).") and "subset" not in full
    assert "mean Zipf frequency of 1.5" in _r("zipf", results.zipf("Q?", 1.51, 4.0))
    assert _r("sweep_heading", results.sweep_heading("m", "Q?")) == "**m**, prompt *Q?*"


def test_contrasts_say_which_words_rank_higher():
    tests = pd.DataFrame({"model": ["m1", "m2"], "reward_kind": ["LM log-prob", "MWLR"],
                          "valence": ["positive", "negative"], "mean_a": [3.25, 6.0], "mean_b": [5.5, 4.0],
                          "hedges_g": [-0.5123, 0.4], "g_ci_low": [-1.2, -0.1], "g_ci_high": [-0.05, 1.0],
                          "p_fdr": [0.0123, 0.2], "reject": [True, False]})
    assert _r("contrasts", results.contrasts(tests, "Agency", "Communion")) == (
        "- m1 (LM log-prob), positive prompts: Agency words rank higher (mean rank 3.2 vs 5.5; g = -0.51 "
        "[-1.20, -0.05]; FDR p = 0.0123, significant).\n"
        "- m2 (MWLR), negative prompts: Communion words rank higher (mean rank 6.0 vs 4.0; g = 0.40 [-0.10, 1.00]; "
        "FDR p = 0.2).")


def test_a_missing_gguf_field_is_left_out_not_printed_as_nan():
    # #28 item 5: "finetune tag nan" in the implicit_rewards prose
    ev = pd.DataFrame([{"model": "m", "family": "Gemma", "verdict": "base", "chat_template_shipped": float("nan"),
                        "gguf_name": "Gemma 3 270m", "gguf_finetune": float("nan"), "registry_says": "base"}])
    s = results.instruct_evidence(ev, [])
    assert s.lines[0].gguf_finetune is None and s.lines[0].chat_template_shipped is None
    text = _r("instruct_evidence", s)
    assert "nan" not in text and "GGUF name 'Gemma 3 270m'" in text
