"""rmlib.analysis.results.good_teachers: the chapter's results built from a small planted teaching table (the
correlations, inversions and replication block from the chapter's own functions), stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from rmlib.analysis.teaching import settings as ts
from rmlib.analysis.teaching import stats as teaching_stats
from rmlib.analysis.results import good_teachers as results
from rmlib.storage import read_results, write_results


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for pi0 in ("uniform", "top 5 of m0"):
        for i in range(4):
            acc = 0.6 + 0.05 * i
            rows.append({"pi0": pi0, "model": f"m{i}", "accuracy_uniform": acc, "accuracy_pi0": acc,
                         "variance_pi0": 1.0 if pi0 == "uniform" else 0.2 + 0.1 * (3 - i),
                         "reward_max": rng.normal(), "gain_T": 0.1 + 0.02 * (3 - i) + 0.001 * i,
                         "speed_to_target": 0.01 * (4 - i), "steps_to_target": float("nan") if i == 0 else 10.0 * i})
    return pd.DataFrame(rows)


def _setting(name: str) -> ts.Setting:
    notes = {"top_rm": "m0"} if name == "published" else {"coverage": pd.DataFrame({"model": ["m0"], "share": [1.0]})}
    return ts.Setting(name, pd.DataFrame({"m0": [0.0]}), np.zeros(1), "r*", np.array(["a"]), {}, {}, notes)


def _results(names=("published",), mode="published") -> results.GoodTeachersResults:
    tab = _table()
    cor = teaching_stats.rank_correlations(tab, ["accuracy_uniform", "variance_pi0"], ["gain_T"], n_resamples=19)
    slower = teaching_stats.slower_but_more_accurate(tab)
    params = results.Parameters(kl_coef=1, lr=0.002, steps=20, gain_steps=5, gain_target=0.25, subset_size=5,
                                subset_mass=0.95, n_resamples=19, seed=0)
    per = lambda v: {n: v for n in names}  # noqa: E731
    return results.chapter_results(
        mode, {n: _setting(n) for n in names}, {"local:gone": "no trained run"}, params,
        pd.DataFrame({"setting": list(names)}), per(tab), 0.004, per(cor), per(teaching_stats.gain_verdicts(cor)),
        per(slower), per(teaching_stats.replication(cor, slower)), per(slower.head(1)), tab.head(2))


def test_the_results_of_a_planted_table_are_typed_and_read_back(tmp_path):
    res = _results()
    rep = res.replication["published"]
    assert rep.n_slower_more_accurate == 12 and rep.accuracy_margin == 0.01
    assert [v.pi0 for v in rep.variance_explains] == ["uniform", "top 5 of m0"]
    assert rep.variance_explains[0].n_lower_variance == 0  # a uniform π_0: every variance is 1
    assert res.top_rm == "m0" and res.compute_coverage is None and res.settings == ["published"]
    assert res.n_slower_but_more_accurate_pi0_pairs == {"published": 1}
    assert {c.stratum for c in res.correlations["published"]} == {"uniform", "top 5 of m0", "pooled"}
    assert res.planted[0].model == "m0" and res.tables["published"][0]["steps_to_target"] is None
    write_results(res, tmp_path)
    assert read_results("good_teachers", tmp_path, results.GoodTeachersResults) == res


def test_compute_mode_keeps_its_coverage_and_a_bad_mode_is_refused():
    res = _results(("compute",), "compute")
    assert res.top_rm is None and res.compute_coverage == [{"model": "m0", "share": 1.0}]
    with pytest.raises(ValidationError):
        _results(mode="all")  # not a MODE
    with pytest.raises(ValidationError):
        _results(("elsewhere",))  # not a setting
