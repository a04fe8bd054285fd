"""rmlib.analysis.results.method: the chapter's results built from a planted sweep and mode comparison."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import method
from rmlib.analysis.results import method as results
from rmlib.storage import read_results, write_results


def test_the_results_of_a_planted_sweep_are_typed_and_read_back(tmp_path):
    sweeps = pd.DataFrame({"model": "m", "prompt": "p", "text": ["a", "b", "c"], "reward": [0.1, 2.0, -1.5],
                           "reward_kind": "RM score"})
    ext = method.extremes(sweeps, top_k=2)
    audit = pd.DataFrame({"model": ["m"], "changed": [3], "examples (id, decoded, re-encoded)": ["(1, 'a', [2])"]})
    both = pd.DataFrame({"token_id": range(4), "score_id_exact": [0.0, 1.0, 2.0, 3.0],
                         "score_paper": [0.0, 1.0, 2.5, 3.0], "round_trip_ok": [True, True, False, True],
                         "n_bos": [1, 1, 2, 1]})
    both["abs_difference"] = (both.score_id_exact - both.score_paper).abs()
    both["mode"] = np.where(both.round_trip_ok, "round trip ok", "id changed by round trip")
    out = results.chapter_results(["m"], ["p"], sweeps, sweeps, ext, audit, "m", SimpleNamespace(untrained_head=True),
                                  both, method.mode_differences(both))
    assert (out.best_token, out.best_reward, out.worst_token) == ("b", 2.0, "c")
    assert out.demo.n_round_trip_changed == 1 and out.demo.share_scores_differ == pytest.approx(0.25)
    assert "examples (id, decoded, re-encoded)" not in out.audit[0]
    write_results(out, tmp_path)
    assert read_results("method", tmp_path, results.MethodResults) == out
    with pytest.raises(ValueError):
        results.MethodResults(**{**out.model_dump(), "best_reward": float("nan")})  # a sweep always has a best
