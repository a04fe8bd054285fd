"""rmbook.chapters.blinding.results: the chapter's results built section by section from the planted scorer (no
model), stored and read back; a missing model is kept with its reason."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.blinding import analysis as B
from rmbook.chapters.blinding import results
from rmbook.chapters.blinding.scores import ModelScores
from rmbook.results import read_results, write_results


def test_the_results_of_the_planted_scorer_are_typed_and_read_back(planted, tmp_path):
    design, _, run = planted
    res = B.disparity(run.table, n_resamples=50)
    beh = B.behaviour(run.table)
    tokens = pd.DataFrame({"model": ["stub", "stub"], "answer": ["Yes", "No"], "n_tokens": [1, 2]})
    setup = results.setup(design, "float32", {"gone-rm": "not trained here (see the finetuning chapter)"})
    counted = B.verdict_counts(res["change"])
    out = results.chapter_results({"stub": run}, setup, results.tokens(tokens, design.answers),
                                  results.scoring({"stub": run}), results.behaviour(beh), res,
                                  results.effects(res["effects"]), results.verdicts(counted),
                                  results.points(B.paper_points(res, beh)), results.rms(B.rm_preferences(run.table)))
    s = out.setup
    assert out.models == ["stub"] and s.missing == {"gone-rm": "not trained here (see the finetuning chapter)"}
    assert [(m.model, m.reason) for m in s.missing_reasons] == [("gone-rm", "not trained here")]
    assert out.usable == {"stub": True} and s.axes == ["religion", "age"] and s.n_axes == 2
    assert s.n_templates == len(design.templates) == s.n_domains and s.n_informed == s.n_templates * s.n_descriptors
    assert s.n_prompts == s.n_templates * (3 * s.n_descriptors + 1) and len(s.examples) == 3
    assert out.tokens.one_token == [] and out.tokens.several_tokens == ["stub"] and out.tokens.answers == ["Yes", "No"]
    assert out.scoring.unusable == [] and out.scoring.example_model == "stub"
    v = out.verdicts
    assert v.counts["told_to_ignore"] == {"reduces": 0, "increases": 1, "no reliable change": 0,
                                          "too few templates": 0}  # the planted instruction backfires
    assert [r.condition for r in v.per_model[0].rows] == ["told_to_ignore", "counterfactual"] and v.n_models == 1
    assert {b.axis for b in v.backfires} == {"religion", "age"} and v.n_axis_cells == 2
    assert [(e.model, e.descriptor) for e in out.effects.largest] == [("stub", "Muslim")]  # the largest planted shift
    assert out.points.n_judged == 1 and out.points.n_instruction_replicates == 1 and out.rms.models == []
    assert {r["condition"] for r in out.summary} >= {"told_to_ignore", "counterfactual"}
    write_results(out, tmp_path)
    assert read_results("blinding", tmp_path, results.BlindingResults) == out
    with pytest.raises(ValueError):
        results.Verdicts(**{**v.model_dump(), "counts": {"blinded": {"reduces": "one"}}})


def test_an_unusable_model_is_named_and_no_usable_model_gives_no_example(planted):
    _, _, run = planted
    base = ModelScores("base", "LM log-prob (implicit reward)", False, 0.001, run.table)
    s = results.scoring({"stub": run, "base": base})
    assert [(u.model, u.mean_mass) for u in s.unusable] == [("base", 0.001)] and s.example_model == "stub"
    none = results.scoring({"base": base})
    assert none.example_model is None and none.example_prompt is None
