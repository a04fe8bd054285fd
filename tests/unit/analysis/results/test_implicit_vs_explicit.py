"""rmlib.analysis.results.implicit_vs_explicit: the chapter's results built from small planted frames (gaps,
displacement and verdict from the chapter's own functions), stored and read back."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from rmlib.analysis import implicit_explicit as ie
from rmlib.analysis.results import implicit_vs_explicit as results
from rmlib.storage import read_results, write_results


def _pieces(changed=(True, False, False, False)):
    sets = pd.DataFrame({"eval_set": ["in_distribution"] * 4 + ["token_shift"] * 4 + ["domain:hh"] * 3,
                         "pair_id": list(range(4)) * 2 + [10, 11, 12],
                         "changed": [False] * 4 + list(changed) + [False] * 3})
    acc = pd.DataFrame({"rm": ["EX-RM", "IM-RM"], "eval_set": ["domain:hh"] * 2, "accuracy": [0.3, 0.7],
                        "ci_low": [0.1, 0.5], "ci_high": [0.45, 0.9], "n": [3, 3]})
    gaps = pd.DataFrame({"eval_set": ["in_distribution", "domain:hh", "token_shift_drop"], "gap": [-0.1, 0.4, 0.05],
                         "ci_low": [-0.3, 0.1, -0.2], "ci_high": [0.1, 0.7, 0.3], "n": [4, 3, 4]})
    log = pd.DataFrame({"step": np.arange(1, 9), "loss": np.linspace(0.7, 0.3, 8),
                        "logps/chosen": np.linspace(-10, -12, 8), "logps/rejected": np.linspace(-10, -16, 8),
                        "rewards/chosen": np.linspace(0, -0.2, 8), "rewards/rejected": np.linspace(0, -0.6, 8),
                        "rewards/margins": np.linspace(0, 0.4, 8)})
    traj = ie.displacement(log, beta=0.1)
    held = pd.DataFrame({"completion": ["chosen", "rejected"], "mean": [-1.0, -2.0], "ci_low": [-1.5, -2.5],
                         "ci_high": [-0.5, -1.5], "n": [4, 4]})
    runs = {"ex": SimpleNamespace(run={"data_hash": "h", "steps": 8}),
            "im": SimpleNamespace(run={"data_hash": "h", "steps": 8, "objective": "dpo"}), "ex_reused": False}
    verdict = ie.pattern_verdict(gaps, changed_share=float(np.mean(changed)), acc=acc)
    return runs, True, sets, acc, gaps, pd.DataFrame({"rm": ["EX-RM"], "rho": [float("nan")]}), \
        ie.displacement_summary(traj), held, traj, verdict


def test_the_results_of_planted_frames_are_typed_and_read_back(tmp_path):
    res = results.chapter_results(*_pieces())
    assert res.sets == {"in_distribution": 4, "token_shift": 4, "domain:hh": 3} and res.token_shift_changed == 0.25
    assert res.gaps[1].eval_set == "domain:hh" and res.gaps[1].ci_low == 0.1
    assert res.displacement.displaced and res.displacement.logratio_chosen_end < 0 < res.displacement.margin_change
    assert res.verdict.below_chance[0].rm == "EX-RM" and res.verdict.token == "inconclusive"
    assert res.heldout_logratios[0].completion == "chosen" and res.overlap == [{"rm": "EX-RM", "rho": None}]
    assert res.runs["im"]["objective"] == "dpo" and len(res.trajectory) == 8
    write_results(res, tmp_path)
    assert read_results("implicit_vs_explicit", tmp_path, results.ImplicitVsExplicitResults) == res


def test_an_unknown_completion_or_run_is_refused():
    res = results.chapter_results(*_pieces())
    with pytest.raises(ValidationError):
        results.ImplicitVsExplicitResults(**{**res.model_dump(), "runs": {"ex": {}, "other": {}}})
    held = [{**h.model_dump(), "completion": "neither"} for h in res.heldout_logratios]
    with pytest.raises(ValidationError):
        results.ImplicitVsExplicitResults(**{**res.model_dump(), "heldout_logratios": held})
