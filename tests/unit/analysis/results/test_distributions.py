"""rmlib.analysis.results.distributions: the chapter's results built from two small planted runs, stored and read
back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import distributions
from rmlib.analysis.results import distributions as results
from rmlib.storage import read_results, write_results


def _runs() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(3)
    kinds = ["word", "sub-word"] * 30

    def run(skews):
        return pd.concat([pd.DataFrame({"model": m, "text": [f"t{i}" for i in range(60)],
                                        "reward": sign * rng.exponential(size=60),
                                        distributions.ANSWER_KIND: kinds}) for m, sign in skews.items()],
                         ignore_index=True)

    return {"published": run({"a": -1, "b": 1, "c": -1}), "compute": run({"x": 1, "y": 1})}


def _results(mode="both"):
    runs = _runs()
    mom, asym = distributions.shape_statistics(runs, n_resamples=49)
    comps = distributions.tail_compositions(runs, 5)
    shared = distributions.shared_vocabulary(runs["compute"])
    return runs, mom, results.chapter_results(mode, runs, mom, asym, comps, pd.DataFrame(), shared)


def test_the_results_of_planted_runs_are_typed_and_read_back(tmp_path):
    runs, mom, res = _results()
    assert res.runs == ["published", "compute"] and res.shared_vocabulary_size == 60
    sk = mom[mom["moment"] == "skewness"]
    pub = res.skew_summary["published"]
    assert pub.n == 3 and pub.n_negative == (sk[sk["run"] == "published"]["ci_high"] < 0).sum()
    assert pub.n_negative + pub.n_positive <= 3 and res.skew_summary["compute"].n == 2
    assert len(res.moments) == len(mom) and {m.run for m in res.moments} == {"published", "compute"}
    assert len(res.asymmetry) == 5 and "q" in res.asymmetry[0].model_dump()  # undeclared columns are kept
    assert sorted(res.composition) == ["compute", "published"] and res.features == []
    write_results(res, tmp_path)
    assert read_results("distributions", tmp_path, results.DistributionsResults) == res


def test_a_bad_mode_or_run_is_refused():
    runs, mom, res = _results()
    with pytest.raises(ValueError):
        _results("all")  # not a MODE
    with pytest.raises(ValueError):
        results.chapter_results("both", {"other": runs["compute"]}, mom, mom.iloc[:0], {}, pd.DataFrame(), None)
