"""rmlib.analysis.results.blinding: the chapter's results built from the planted scorer (no model), stored and read
back; a missing model is kept with its reason."""
from __future__ import annotations

import pandas as pd
import pytest

from rmlib.analysis import blinding as B
from rmlib.analysis.results import blinding as results
from rmlib.storage import read_results, write_results


def test_the_results_of_the_planted_scorer_are_typed_and_read_back(planted, tmp_path):
    design, _, run = planted
    res = B.disparity(run.table, n_resamples=50)
    beh = B.behaviour(run.table)
    tokens = pd.DataFrame({"model": ["stub"], "answer": ["Yes"], "token_id": [1]})
    out = results.chapter_results(design, {"stub": run}, {"gone-rm": "not trained here"}, "float32", tokens, beh,
                                  res, B.verdict_counts(res["change"]), B.paper_points(res, beh),
                                  B.rm_preferences(run.table))
    assert out.models == ["stub"] and out.missing == {"gone-rm": "not trained here"} and out.usable == {"stub": True}
    assert out.axes == ["religion", "age"] and out.n_templates == len(design.templates)
    assert out.verdicts["told_to_ignore"]["increases"] == 1  # the planted instruction backfires
    assert {r["condition"] for r in out.summary} >= {"told_to_ignore", "counterfactual"}
    write_results(out, tmp_path)
    assert read_results("blinding", tmp_path, results.BlindingResults) == out
    with pytest.raises(ValueError):
        results.BlindingResults(**{**out.model_dump(), "verdicts": {"blinded": {"reduces": "one"}}})
