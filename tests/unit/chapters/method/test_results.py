"""rmbook.chapters.method.results: the chapter's results built section by section from a planted sweep, audit and
mode comparison, stored and read back."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.method import analysis as method
from rmbook.chapters.method import results
from rmbook.results import read_results, write_results


def test_the_results_of_a_planted_sweep_are_typed_and_read_back(tmp_path):
    sweeps = pd.DataFrame({"model": "m", "model_label": "M", "prompt": "p", "text": ["a", "b", "c"],
                           "reward": [0.1, 2.0, -1.5], "reward_kind": "RM score"})
    ext = results.extremes(sweeps, method.extremes(sweeps, top_k=2), 2)
    audit = pd.DataFrame({"model": ["m"], "ids checked": [10], "ids changed by decode→encode": [3],
                          "share changed": [0.3], "leading BOS, paper mode": [2], "leading BOS, id-exact": [1],
                          "examples (id, decoded, re-encoded)": ["(1, 'a', [2])"]})
    both = pd.DataFrame({"token_id": range(4), "score_id_exact": [0.0, 1.0, 2.0, 3.0],
                         "score_paper": [0.0, 1.0, 2.5, 3.0], "round_trip_ok": [True, True, False, True],
                         "n_bos": [1, 1, 2, 1]})
    both["abs_difference"] = (both.score_id_exact - both.score_paper).abs()
    both["mode"] = np.where(both.round_trip_ok, "round trip ok", "id changed by round trip")
    demo = results.modes_demo("m", SimpleNamespace(untrained_head=True), both, method.mode_differences(both))
    out = results.chapter_results(["m"], ["p"], sweeps, ext, results.roundtrip(audit), demo)
    e = out.extremes
    assert (e.best_token, e.best_reward, e.worst_token, e.p_best) == ("b", 2.0, "c", None)  # an RM: no probability
    assert out.demo.n_round_trip_changed == 1 and out.demo.share_scores_differ == pytest.approx(0.25)
    assert out.roundtrip.worst_model == "m" and "examples (id, decoded, re-encoded)" not in out.roundtrip.table[0]
    write_results(out, tmp_path)
    assert read_results("method", tmp_path, results.MethodResults) == out
    with pytest.raises(ValueError):
        results.Extremes(**{**e.model_dump(), "best_reward": float("nan")})  # a sweep always has a best
