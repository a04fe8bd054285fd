"""rmbook.chapters.good_teachers.results: the chapter's results built from a small planted teaching table (the
correlations, inversions and replication block from the chapter's own functions), stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from rmbook.chapters.good_teachers import settings as ts
from rmbook.chapters.good_teachers import stats as teaching_stats
from rmbook.chapters.good_teachers import results
from rmbook.results import read_results, write_results


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
    notes = ({"top_rm": "m0"} if name == "published" else
             {"policy": "p", "coverage": pd.DataFrame({"model": ["m0"], "share_tokens": [1.0],
                                                       "share_pi0_mass": [1.0]})})
    return ts.Setting(name, pd.DataFrame({"m0": [0.0]}), np.zeros(1), "r*", np.array(["a"]), {"p": np.ones(1)},
                      {f"m{i}": "RM score" for i in range(4)}, notes)


def _results(names=("published",), mode="published") -> results.GoodTeachersResults:
    tab = _table().assign(eventual_gain=1.0, objective_min_increase=0.0)
    cor = teaching_stats.rank_correlations(tab, ["accuracy_uniform", "variance_pi0"], ["gain_T"], n_resamples=19)
    slower = teaching_stats.slower_but_more_accurate(tab)
    counts = teaching_stats.slower_counts(tab, slower)
    params = results.Parameters(kl_coef=1, lr=0.002, steps=20, gain_steps=5, gain_target=0.25, subset_size=5,
                                subset_mass=0.95, n_resamples=19, seed=0)
    settings = {n: _setting(n) for n in names}
    per = lambda f: {n: f(n) for n in names}  # noqa: E731
    planted = pd.DataFrame({"model": ["accurate", "noisy"], "accuracy_uniform": [1.0, 0.8],
                            "variance_pi0": [0.01, 0.9], "gain_T": [0.05, 0.4], "eventual_gain": [1.2, 0.9]})
    main = teaching_stats.gain_verdicts(cor)
    return results.chapter_results(
        settings, params, results.run(mode, settings, {"local:gone": "no trained run"}),
        results.setup(settings, False, True), pd.DataFrame({"setting": list(names)}), per(lambda n: tab),
        results.accuracy(per(lambda n: results.setting_summary(n, settings[n], tab)), 0.004, 5000), per(lambda n: cor),
        per(lambda n: main), per(lambda n: results.verdicts(n, main)), per(lambda n: slower),
        per(lambda n: results.slower(n, slower, counts, 1)),
        per(lambda n: results.replication(n, teaching_stats.replication(cor, slower), cor)), per(lambda n: slower.head(1)),
        planted, results.planted(names[0], planted), per(lambda n: results.speed(n, tab)),
        results.compute(settings["compute"], tab.replace({"top 5 of m0": "p"})) if "compute" in names else None)


def test_the_results_of_a_planted_table_are_typed_and_read_back(tmp_path):
    res = _results()
    rep = res.replication["published"]
    assert rep.n_slower_more_accurate == 12 and rep.accuracy_margin == 0.01
    assert [v.pi0 for v in rep.variance_explains] == ["uniform", "top 5 of m0"]
    assert rep.variance_explains[0].n_lower_variance == 0  # a uniform π_0: every variance is 1
    assert res.top_rm == "m0" and res.compute_coverage is None and res.settings == ["published"]
    assert res.n_slower_but_more_accurate_pi0_pairs == {"published": 1}
    assert {c.stratum for c in res.correlations["published"]} == {"uniform", "top 5 of m0", "pooled"}
    assert res.planted[0].model == "accurate" and res.tables["published"][0]["steps_to_target"] is None
    # the sections the sentences are rendered from
    assert res.run.absent == {"local:gone": "no trained run"} and not res.run.compute_ran
    assert res.setup.top_rm == "m0" and res.accuracy.sampled_gap == 0.004
    assert not {"absent_models", "sampled_accuracy_max_gap", "mode"} & set(res.model_dump())  # each number once (#26)
    acc = res.accuracy.settings[0]
    assert (acc.accuracy_min, acc.accuracy_min_model, acc.accuracy_max_model) == (0.6, "m0", "m3")
    assert [(v.pi0, v.low) for v in acc.variance] == [("uniform", 1.0), ("top 5 of m0", 0.2)]
    speed = res.speed["published"]
    assert speed.objective_rose and [(u.fastest, u.slowest, u.n_missed) for u in speed.under] == [("m0", "m3", 1)] * 2
    assert [v.predictor for v in res.verdict_lines["published"].predictors] == ["accuracy_uniform", "variance_pi0"]
    assert res.slower["published"].n_pairs == 12 and res.slower["published"].has_uniform
    assert rep.part1 == "replicates" and rep.n_variance_strata == 1 and rep.setting == "published"
    assert res.planted_case.noisy_faster and res.planted_case.accurate_ahead_at_end and res.compute is None
    write_results(res, tmp_path)
    assert read_results("good_teachers", tmp_path, results.GoodTeachersResults) == res


def test_compute_mode_keeps_its_coverage_and_a_bad_mode_is_refused():
    res = _results(("compute",), "compute")
    assert res.top_rm is None and res.setup.top_rm is None and res.run.compute_ran
    assert res.compute_coverage == [{"model": "m0", "share_tokens": 1.0, "share_pi0_mass": 1.0}]
    assert res.compute.policy == "p" and res.compute.n_proxies == 4 and res.compute.fastest == "m0"
    with pytest.raises(ValidationError):
        _results(mode="all")  # not a MODE
    with pytest.raises(ValidationError):
        _results(("elsewhere",))  # not a setting
