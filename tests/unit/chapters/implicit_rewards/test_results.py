"""rmbook.chapters.implicit_rewards.results: the chapter's results built from small planted frames, stored and read
back."""
from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from rmbook.chapters.implicit_rewards import results
from rmbook.results import read_results, write_results


def _pieces(families=("Gemma−Llama", "Gemma")):
    evidence = pd.DataFrame({"model": ["m1", "m2"], "family": ["Gemma", "Llama"], "verdict": ["unknown", "unknown"],
                             "chat_template_shipped": [False, True], "gguf_name": [None, "M2"],
                             "gguf_finetune": [None, None], "registry_says": ["unknown", "base"], "notes": ["x", "y"]})
    within = pd.DataFrame({"model": ["m1", "m2"], "kendall_tau_logit_vs_logprob": [1.0, 0.98],
                           "offset_spread": [1e-7, 2e-7], "logsumexp": [3.0, 4.5]})
    tests = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "valence": ["positive", "negative"] * 2,
                          "group_a": "Agency", "group_b": "Communion", "reward_kind": "LM log-prob",
                          "mean_a": [1.0, 2.0, 2.0, 1.0], "mean_b": [2.0, 1.0, 1.0, 2.0],
                          "hedges_g": [-0.5, 0.4, 0.2, -0.1], "reject": [True, False, False, False],
                          "g_ci_low": [-1, 0, -1, -1], "g_ci_high": [0, 1, 1, 1], "p_fdr": [0.01, 0.2, 0.5, 0.6]})
    scores = pd.DataFrame({"model": ["m1", "m2"], "family": list(families), "word": ["a", "b"],
                           "prompt_key": ["best_ever_one", "worst_ever_one"]})
    sections = dict(
        evidence_=results.instruct_evidence(evidence, []), sweep_headings=[results.sweep_heading("m1", "Q?")],
        logits=results.logit_logprob(within, 0.4, 2), zipf_=results.zipf("Q?", 6.1, 4.5),
        design_=results.design(["best_ever_one", "worst_ever_one"]),
        lexicons={"big2": results.lexicon_scores("big2", scores, scores, 2)},
        big2_contrasts=results.contrasts(tests, "Agency", "Communion"), mfd2=results.valence_summary(tests))
    return (["m1", "m2"], evidence, tests, scores), sections


def test_the_results_of_planted_frames_are_typed_and_read_back(tmp_path):
    args, sections = _pieces()
    res = results.chapter_results(*args, **sections)
    assert res.logits.min_tau == 0.98 and res.logits.pooled_tau == 0.4 and res.lms == ["m1", "m2"]
    assert (res.zipf.lm_top, res.zipf.rm_top) == (6.1, 4.5)
    assert not {"within_min_tau", "zipf_lm_top", "zipf_rm_top", "pooled_tau"} & set(res.model_dump())  # each number once (#26)
    assert res.mwlr_gemma_llama.model == "m1" and res.mwlr_gemma_llama.hedges_g == -0.5
    assert res.mwlr_gemma_llama.reject is True
    assert (res.mfd2.n_panels, res.mfd2.n_significant_fdr, res.mfd2.valence_consistent) == (4, 1, 2)
    assert "group_a" not in res.big2[0] and len(res.big2) == 4
    assert set(res.instruct_evidence[0]) == {"model", "family", "verdict", "chat_template_shipped"}
    # the sections the sentences are rendered from
    assert (res.mfd2.n_positive, res.mfd2.n_positive_consistent, res.mfd2.n_negative_consistent) == (2, 1, 1)
    assert res.evidence.lines[0].registry_says is None and res.evidence.lines[1].registry_says == "base"
    assert res.evidence.lines[0].gguf_name is None and res.evidence.lines[1].chat_template_shipped == "True"
    assert res.logits.min_tau == 0.98 and not res.logits.pooled_agree and res.logits.logsumexp_max == 4.5
    assert res.design.n_prompts == 2 and res.design.subset and res.design.positive_adjectives == ["best"]
    assert res.lexicons["big2"].implicit_models == ["m1", "m2"] and res.lexicons["big2"].n_words == 2
    assert [r.higher for r in res.big2_contrasts.rows] == ["Agency", "Communion", "Communion", "Agency"]
    write_results(res, tmp_path)
    assert read_results("implicit_rewards", tmp_path, results.ImplicitRewardsResults) == res


def test_no_gemma_llama_panel_is_none_and_a_bad_summary_is_refused():
    args, sections = _pieces(families=("Gemma", "Llama"))
    res = results.chapter_results(*args, **sections)
    assert res.mwlr_gemma_llama is None
    with pytest.raises(ValidationError):
        results.ImplicitRewardsResults(**{**res.model_dump(), "mfd2": {"n_panels": 4}})
