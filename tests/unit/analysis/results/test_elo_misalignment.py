"""rmlib.analysis.results.elo_misalignment: the chapter's results built from planted scores of three models under two
prompts (and a planted topic test), stored and read back."""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import human_ratings as hr
from rmlib.analysis.results import elo_misalignment as results
from rmlib.storage import read_results, write_results

MODELS = ["org/a", "org/b", "org/c"]


def _elo(n=60) -> hr.EloScores:
    rng = np.random.default_rng(0)
    human = pd.DataFrame({"item": [f"i{k}" for k in range(n)], "elo_score": np.linspace(2000, 1000, n),
                          "elo_rank": np.arange(1, n + 1)})
    scores = pd.concat([human.assign(prompt_key=key, **{m: 0.5 * human["elo_score"] / 100 + rng.normal(size=n)
                                                        for m in MODELS}) for key in ("greatest", "prefer")],
                       ignore_index=True)
    scores["form"] = np.where(scores["elo_rank"] % 2, "dictionary word", "multi-word name")
    scores["valence_band"] = np.where(scores["elo_rank"] % 3, "neutral", "positive")
    return hr.EloScores(scores, MODELS, {m: m.split("/")[1].upper() for m in MODELS},
                        {m: "RM score (published)" for m in MODELS}, ["greatest", "prefer"], human, True)


def _topics(n=60) -> dict:
    """What :func:`hr.undervalued_topics` returns, planted (two themes on two prompts)."""
    rec = lambda topic, d: {"topic": topic, "n_items": 10, "n_flagged": 3, "expected": 1.0, "ratio": 3.0, "p": 0.01,
                            "p_fdr": 0.02, "direction": d}
    by_prompt = pd.DataFrame([{**rec(t, d), "prompt": pr} for t, per in
                              {"nature": {"greatest": "over", "prefer": ""}, "life": {"greatest": "under",
                                                                                     "prefer": "over"}}.items()
                              for pr, d in per.items()])
    items = pd.DataFrame({"item": [f"i{k}" for k in range(n)]})
    return {"topics": items, "with_topic": items.iloc[:40], "n_flagged": 6, "by_prompt": by_prompt,
            "no_topic": pd.DataFrame([rec("has a topic", "over")]).set_index("topic"),
            "enrich": {"theme": pd.DataFrame([rec("nature", "")]), "supersense": pd.DataFrame([rec("noun.act", "")])}}


@functools.cache
def _pieces() -> tuple:
    elo = _elo()
    agreement = hr.human_agreement(elo.scores, elo.models, elo.label)
    mis, cons = hr.consensus_tables(elo)
    rob = hr.method_robustness(cons, "median", 5)
    fs = hr.form_summary(mis, rob["consensus"], n_resamples=19, min_items=5)
    return elo, agreement, rob, fs, _topics(), hr.rank_trajectories(elo, rob["consensus"], 3)


def _results(mode="published", aggregate="median") -> results.EloMisalignmentResults:
    elo, agreement, rob, fs, tp, traj = _pieces()
    return results.chapter_results(mode, elo, agreement, aggregate, rob, fs, tp, traj, share=0.1, strata=1,
                                   n_resamples=99)


def test_the_results_of_planted_scores_are_typed_and_read_back(tmp_path):
    res = _results()
    assert res.n_items == 60 and res.prompt_keys == ["greatest", "prefer"] and res.human_elo_same_across_prompts
    assert len(res.agreement) == 6 and res.n_agreement_cells == 6 and {a.model for a in res.agreement} == {"A", "B",
                                                                                                         "C"}
    assert all(a.ci_low < a.rho < a.ci_high for a in res.agreement) and res.n_agreement_ci_above_0 == 6
    assert len(res.most_over) == 3 and set(res.form_rank_diff) == {"dictionary word", "multi-word name"}
    t = res.topics
    assert (t.n_items, t.n_with_topic, t.n_flagged, t.strata) == (60, 40, 6, 1)
    nature = [r for r in t.themes_by_prompt if r.topic == "nature"]
    assert {r.prompt: r.direction for r in nature} == {"greatest": "over", "prefer": "none"}
    assert t.theme_prompts["life"] == {"over": ["prefer"], "under": ["greatest"]}
    assert res.n_trajectory_items == 3
    write_results(res, tmp_path)
    assert read_results("elo_misalignment", tmp_path, results.EloMisalignmentResults) == res


def test_a_mode_or_aggregate_outside_the_choices_is_refused():
    with pytest.raises(ValueError):
        _results(mode="both")
    with pytest.raises(ValueError):
        _results(aggregate="trimmed")
