"""rmlib.analysis.results.implicit_rewards: the chapter's results built from small planted frames, stored and read
back."""
from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from rmlib.analysis.results import implicit_rewards as results
from rmlib.storage import read_results, write_results


def _pieces(families=("Gemma−Llama", "Gemma")):
    evidence = pd.DataFrame({"model": ["m1", "m2"], "family": ["Gemma", "Llama"], "verdict": ["unknown", "unknown"],
                             "chat_template_shipped": [False, True], "notes": ["x", "y"]})
    within = pd.DataFrame({"model": ["m1", "m2"], "kendall_tau_logit_vs_logprob": [1.0, 0.98]})
    tests = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "valence": ["positive", "negative"] * 2,
                          "group_a": "Agency", "group_b": "Communion",
                          "hedges_g": [-0.5, 0.4, 0.2, -0.1], "reject": [True, False, False, False],
                          "g_ci_low": [-1, 0, -1, -1], "g_ci_high": [0, 1, 1, 1], "p_fdr": [0.01, 0.2, 0.5, 0.6]})
    scores = pd.DataFrame({"model": ["m1", "m2"], "family": list(families)})
    return ["m1", "m2"], evidence, within, 0.4, 6.1, 4.5, tests, scores, tests


def test_the_results_of_planted_frames_are_typed_and_read_back(tmp_path):
    res = results.chapter_results(*_pieces())
    assert res.within_min_tau == 0.98 and res.pooled_tau == 0.4 and res.lms == ["m1", "m2"]
    assert res.mwlr_gemma_llama.model == "m1" and res.mwlr_gemma_llama.hedges_g == -0.5
    assert res.mwlr_gemma_llama.reject is True
    assert (res.mfd2.n_panels, res.mfd2.n_significant_fdr, res.mfd2.valence_consistent) == (4, 1, 2)
    assert "group_a" not in res.big2[0] and len(res.big2) == 4
    assert set(res.instruct_evidence[0]) == {"model", "family", "verdict", "chat_template_shipped"}
    write_results(res, tmp_path)
    assert read_results("implicit_rewards", tmp_path, results.ImplicitRewardsResults) == res


def test_no_gemma_llama_panel_is_none_and_a_bad_summary_is_refused():
    res = results.chapter_results(*_pieces(families=("Gemma", "Llama")))
    assert res.mwlr_gemma_llama is None
    with pytest.raises(ValidationError):
        results.ImplicitRewardsResults(**{**res.model_dump(), "mfd2": {"n_panels": 4}})
