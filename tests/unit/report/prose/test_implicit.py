"""rmlib.report.prose.implicit: the implicit-rewards chapter's sentences follow the numbers they are given."""
from __future__ import annotations

import pandas as pd

from rmlib.report.prose import implicit


def test_instruct_evidence_markdown_says_whether_a_dpo_pair_exists():
    ev = pd.DataFrame({"model": ["g-it"], "family": ["Gemma"], "verdict": ["instruct"], "chat_template_shipped": [True],
                       "gguf_name": ["Gemma It"], "gguf_finetune": [None], "registry_says": ["unknown"]})
    none = implicit.instruct_evidence_markdown(ev, [])
    assert "- **g-it** (Gemma): **instruct** — chat template shipped: True; GGUF name 'Gemma It'" in none
    assert "registry says" not in none and "here: **none**" in none and "cannot be computed" in none
    assert "here: Gemma. Pass such a pair" in implicit.instruct_evidence_markdown(ev, ["Gemma"])


def test_logit_logprob_markdown_follows_the_pooled_tau():
    within = pd.DataFrame({"logsumexp": [1.0, 5.0], "offset_spread": [1e-7, 2e-7],
                           "kendall_tau_logit_vs_logprob": [1.0, 0.99991]})
    assert "disagree (τ = 0.50)" in implicit.logit_logprob_markdown(within, 0.5, 2)
    assert "from 1.0 to 5.0" in implicit.logit_logprob_markdown(within, 0.5, 2)
    agree = implicit.logit_logprob_markdown(within, 1.0, 2)
    assert "agree here (τ = 1.00)" in agree and "at least 0.9999" in agree and "all 2 models" in agree


def test_mfd2_valence_markdown_counts_significant_and_consistent_panels():
    tests = pd.DataFrame({"valence": ["positive", "positive", "negative"], "hedges_g": [-0.3, 0.2, 0.5],
                          "reject": [True, False, True]})
    text = implicit.mfd2_valence_markdown(tests)
    assert text.startswith("2 of 3 panels") and "holds in 1 of 2 positive and 1 of 1 negative" in text


def test_lexicon_and_prompt_sentences():
    scores = pd.DataFrame({"word": ["a", "b", "a"], "prompt_key": ["p", "p", "q"]})
    imp = pd.DataFrame({"model": ["MWLR(x‖y)", "MWLR(x‖y)"]})
    assert implicit.lexicon_scores_markdown("big2", scores, imp, 3) == \
        "**big2**: 2 words × 2 prompts × 3 LMs; implicit rewards: MWLR(x‖y)"
    assert "a subset of the 54" in implicit.design_prompts_markdown(["best_ever_one", "worst_ever_one"], 2)
    assert implicit.design_prompts_markdown(["best_ever_one", "worst_ever_one"], 54).endswith(".")
    assert "mean Zipf frequency of 1.5" in implicit.zipf_markdown("Q?", 1.51, 4.0)


def test_a_missing_gguf_field_is_left_out_not_printed_as_nan():
    # #28 item 5: "finetune tag nan" in the implicit_rewards prose
    ev = pd.DataFrame([{"model": "m", "family": "Gemma", "verdict": "base", "chat_template_shipped": float("nan"),
                        "gguf_name": "Gemma 3 270m", "gguf_finetune": float("nan"), "registry_says": "base"}])
    text = implicit.instruct_evidence_markdown(ev, [])
    assert "nan" not in text and "GGUF name 'Gemma 3 270m'" in text
