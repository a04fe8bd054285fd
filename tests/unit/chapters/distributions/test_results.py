"""rmbook.chapters.distributions.results: the chapter's results built section by section from two small planted runs,
stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.distributions import analysis as distributions
from rmbook.chapters.distributions import results
from rmbook.results import read_results, write_results


def _runs() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(3)
    kinds = ["word", "sub-word"] * 30

    def run(skews, kind):
        return pd.concat([pd.DataFrame({"model": m, "text": [f"t{i}" for i in range(60)],
                                        "reward": sign * rng.exponential(size=60), "reward_kind": kind,
                                        distributions.ANSWER_KIND: kinds}) for m, sign in skews.items()],
                         ignore_index=True)

    return {"published": run({"a": -1, "b": 1, "c": -1}, "RM score (published)"),
            "compute": run({"x": 1, "y": 1}, "LM log-prob (implicit reward)")}


def _results(mode="both", feats=None):
    runs = _runs()
    mom, asym = distributions.shape_statistics(runs, n_resamples=49)
    comps = distributions.tail_compositions(runs, 5)
    shared = distributions.shared_vocabulary(runs["compute"])
    feats = pd.DataFrame() if feats is None else feats
    answers = {name: results.answer_set(name, df) for name, df in runs.items()}
    res = results.chapter_results(mode, answers, mom, asym, results.shape(mom, asym), comps,
                                  {name: results.tail_kinds(name, c) for name, c in comps.items()}, feats,
                                  results.word_share(feats), results.shared_vocabulary_size(shared))
    return runs, mom, asym, res


def test_the_results_of_planted_runs_are_typed_and_read_back(tmp_path):
    runs, mom, asym, res = _results()
    assert res.runs == ["published", "compute"] and res.shared_vocabulary_size == 60
    sk = mom[mom["moment"] == "skewness"]
    pub = res.skew_summary["published"]
    assert pub.n == 3 and pub.n_negative == (sk[sk["run"] == "published"]["ci_high"] < 0).sum()
    assert pub.n_negative + pub.n_positive <= 3 and res.skew_summary["compute"].n == 2
    assert len(res.moments) == len(mom) and {m.run for m in res.moments} == {"published", "compute"}
    assert len(res.asymmetry) == 5 and "q" in res.asymmetry[0].model_dump()  # undeclared columns are kept
    assert sorted(res.composition) == ["compute", "published"] and res.features == []
    assert res.word_share.computed is False and res.word_share.models == []
    write_results(res, tmp_path)
    assert read_results("distributions", tmp_path, results.DistributionsResults) == res


def test_the_answer_sets_count_models_answers_and_lms():
    runs, _, _, res = _results()
    pub, comp = res.answer_sets["published"], res.answer_sets["compute"]
    assert (pub.models, pub.n_models, pub.n_answers_min, pub.same_size, pub.n_lm) == (["a", "b", "c"], 3, 60, True, 0)
    assert (comp.n_models, comp.n_lm) == (2, 2)
    short = runs["compute"].iloc[:-10]  # y loses 10 answers
    s = results.answer_set("compute", short)
    assert (s.n_answers_min, s.n_answers_max, s.same_size) == (50, 60, False)


def test_the_shape_pools_every_run_and_names_the_largest_absolute_skewness():
    _, mom, asym, res = _results()
    sk = mom[mom["moment"] == "skewness"]
    most = sk.loc[sk["estimate"].abs().idxmax()]
    s = res.shape
    assert s.skew.n == 5 and s.skew.n_negative == (sk["ci_high"] < 0).sum()
    assert s.skew.n_positive == sum(c.n_positive for c in res.skew_summary.values())
    assert (s.most_asymmetric.model, s.most_asymmetric.run, s.most_asymmetric.estimate) == (
        most.model, most.run, pytest.approx(most.estimate))
    assert "model_run" not in s.most_asymmetric.model_dump()
    assert (s.n_ratio_below_1, s.n_ratio_above_1) == ((asym["ci_high"] < 1).sum(), (asym["ci_low"] > 1).sum())


def test_the_tails_name_the_largest_share_of_each_tail_per_model():
    _, _, _, res = _results()
    t = res.tails["published"]
    assert t.run == "published" and t.k == 5 and [m.model for m in t.models] == ["a", "b", "c"]
    comp = pd.DataFrame(res.composition["published"])
    a_top = comp[(comp["model"] == "a") & (comp["tail"] == "top")]
    assert t.models[0].top_share == pytest.approx(a_top["share"].max())
    assert t.models[0].top_value == a_top.loc[a_top["share"].idxmax(), "value"]


def test_the_word_share_keeps_the_is_word_rows_only():
    feats = pd.DataFrame({"feature": ["is_word", "n_chars", "is_word"], "model": ["x", "x", "y"],
                          "top_mean": [0.9, 4.0, 0.1], "bottom_mean": [0.3, 2.0, 0.2], "difference": [0.6, 2.0, -0.1],
                          "ci_low": [0.4, 1.0, -0.3], "ci_high": [0.8, 3.0, 0.1], "rank_biserial": [0.5, 0.4, -0.1]})
    words = results.word_share(feats)
    assert words.computed and [(r.model, r.difference) for r in words.models] == [("x", 0.6), ("y", -0.1)]


def test_a_bad_mode_or_run_is_refused():
    runs, mom, asym, res = _results()
    with pytest.raises(ValueError):
        _results("all")  # not a MODE
    with pytest.raises(ValueError):
        results.chapter_results("both", {"other": res.answer_sets["compute"]}, mom, asym, res.shape, {}, {},
                                pd.DataFrame(), res.word_share, None)
    with pytest.raises(ValueError):
        results.answer_set("other", runs["compute"])
