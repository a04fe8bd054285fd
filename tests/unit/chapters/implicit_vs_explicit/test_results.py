"""rmbook.chapters.implicit_vs_explicit.results: the chapter's results built section by section from small planted
frames (gaps, displacement and verdict from the chapter's own functions), stored and read back."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from rmbook.chapters.implicit_vs_explicit import analysis as ie
from rmbook.chapters.implicit_vs_explicit import results
from rmbook.results import read_results, write_results

RUN = {"base_model": "tiny-llama", "n_pairs": 48, "sources": ["synthetic_marker"], "steps": 8, "batch_size": 8,
       "method": "full", "lr": 2e-3, "max_len": 96, "seed": 0, "data_hash": "h"}


def _pieces(changed=(True, False, False, False)):
    sets = pd.DataFrame({"eval_set": ["in_distribution"] * 4 + ["token_shift"] * 4 + ["domain:hh"] * 3,
                         "pair_id": list(range(4)) * 2 + [10, 11, 12],
                         "changed": [False] * 4 + list(changed) + [False] * 3,
                         "kept_words": [np.nan] * 4 + [0.5, 1.0, 1.0, 0.9] + [np.nan] * 3})
    acc = pd.DataFrame({"rm": ["EX-RM", "IM-RM"] * 2, "eval_set": ["domain:hh"] * 2 + ["in_distribution"] * 2,
                        "accuracy": [0.3, 0.7, 0.8, 0.7], "ci_low": [0.1, 0.5, 0.6, 0.5],
                        "ci_high": [0.45, 0.9, 1, 0.9],
                        "n": [3, 3, 4, 4]})
    gaps = pd.DataFrame({"eval_set": ["in_distribution", "domain:hh", "token_shift_drop"], "gap": [-0.1, 0.4, 0.05],
                         "ci_low": [-0.3, 0.1, -0.2], "ci_high": [0.1, 0.7, 0.3], "n": [4, 3, 4]})
    log = pd.DataFrame({"step": np.arange(1, 9), "loss": np.linspace(0.7, 0.3, 8),
                        "logps/chosen": np.linspace(-10, -12, 8), "logps/rejected": np.linspace(-10, -16, 8),
                        "rewards/chosen": np.linspace(0, -0.2, 8), "rewards/rejected": np.linspace(0, -0.6, 8),
                        "rewards/margins": np.linspace(0, 0.4, 8)})
    traj = ie.displacement(log, beta=0.1)
    held = pd.DataFrame({"completion": ["chosen", "rejected"], "mean": [-1.0, -2.0], "ci_low": [-1.5, -2.5],
                         "ci_high": [-0.5, -1.5], "n": [4, 4]})
    runs = {"ex": SimpleNamespace(run=RUN), "im": SimpleNamespace(run={**RUN, "objective": "dpo", "beta": 0.1}),
            "ex_reused": False}
    verdict = ie.pattern_verdict(gaps, changed_share=float(np.mean(changed)), acc=acc)
    return (runs, True, results.training(runs, True), results.shift(sets, ["casing"]), acc,
            results.accuracy(acc, gaps, "IM-RM", "EX-RM"), gaps,
            results.overlap(pd.DataFrame({"rm": ["EX-RM"], "rho": [float("nan")]})),
            results.displacement(ie.displacement_summary(traj)), held, results.heldout(held), traj,
            results.verdict(verdict, gaps, "tiny-llama"))


def test_the_results_of_planted_frames_are_typed_and_read_back(tmp_path):
    res = results.chapter_results(*_pieces())
    assert res.sets == {"in_distribution": 4, "token_shift": 4, "domain:hh": 3} and res.token_shift_changed == 0.25
    assert res.shift.sizes == res.sets and res.shift.changed == 0.25
    assert res.shift.kept_mean == pytest.approx(0.85) and res.shift.kept_median == pytest.approx(0.95)
    assert res.training.same_data and res.training.beta == 0.1 and not res.training.ex_reused and not res.ex_reused
    assert res.gaps[1].eval_set == "domain:hh" and res.gaps[1].ci_low == 0.1
    # one line per set but the difference of drops, the two RMs side by side
    lines = res.accuracy_lines.lines
    assert [ln.eval_set for ln in lines] == ["in_distribution", "domain:hh"]
    assert (lines[1].im_accuracy, lines[1].ex_accuracy, lines[1].gap, lines[1].n) == (0.7, 0.3, 0.4, 3)
    d = res.displacement
    assert d.displaced and d.logratio_chosen_end < 0 < d.margin_change and d.margin_grew and d.rejected_fell_further
    assert res.heldout.chosen_side == "below" and res.heldout.n == 4 and res.heldout.rejected_mean == -2.0
    v = res.verdict
    assert v.below_chance[0].rm == "EX-RM" and v.token == "not established" and v.base == "tiny-llama"
    assert v.drop.gap == 0.05
    assert [(g.source, g.kind) for g in v.domain_gaps] == [("hh", "not established (below chance)")]
    assert v.failed_halves == [] and [(o.half, o.state) for o in v.open_halves] == [("token-level", "not established"),
                                                                                     ("domain", "not established")]
    assert res.heldout_logratios[0].completion == "chosen" and res.overlap.table == [{"rm": "EX-RM", "rho": None}]
    assert res.runs["im"]["objective"] == "dpo" and len(res.trajectory) == 8
    write_results(res, tmp_path)
    assert read_results("implicit_vs_explicit", tmp_path, results.ImplicitVsExplicitResults) == res


def test_the_verdict_names_the_failed_halves_and_a_missing_drop():
    gaps = pd.DataFrame({"eval_set": ["domain:a", "token_shift_drop"], "gap": [-0.2, -0.1],
                         "ci_low": [-0.3, -0.2], "ci_high": [-0.1, -0.02], "n": [5, 5]})
    v = results.verdict(ie.pattern_verdict(gaps), gaps, "b")
    assert v.failed_halves == ["token-level", "domain"] and not v.one_failed and v.open_halves == []
    none = results.verdict(ie.pattern_verdict(gaps.iloc[:1]), gaps.iloc[:1], "b")
    assert none.drop is None and [(o.half, o.state) for o in none.open_halves] == [("token-level", "not computed")]


def test_an_unknown_completion_or_run_is_refused():
    res = results.chapter_results(*_pieces())
    with pytest.raises(ValidationError):
        results.ImplicitVsExplicitResults(**{**res.model_dump(), "runs": {"ex": {}, "other": {}}})
    held = [{**h.model_dump(), "completion": "neither"} for h in res.heldout_logratios]
    with pytest.raises(ValidationError):
        results.ImplicitVsExplicitResults(**{**res.model_dump(), "heldout_logratios": held})
