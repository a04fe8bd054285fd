"""rmbook.chapters.elo_misalignment.results: the chapter's results built from planted scores of three models under two
prompts (and a planted topic test), stored and read back."""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.elo_misalignment import analysis as hr
from rmbook.chapters.elo_misalignment import results
from rmbook.results import read_results, write_results

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
                            "p_fdr": 0.02, "p_fdr_se": 0.001, "direction": d}
    by_prompt = pd.DataFrame([{**rec(t, d), "prompt": pr} for t, per in
                              {"nature": {"greatest": "over", "prefer": ""}, "life": {"greatest": "under",
                                                                                     "prefer": "over"}}.items()
                              for pr, d in per.items()])
    items = pd.DataFrame({"item": [f"i{k}" for k in range(n)], "topic": ["noun.act"] * 40 + [None] * (n - 40),
                          "rule": ["head"] * 40 + ["not a WordNet noun"] * (n - 41) + ["no word"],
                          "themes": [["human sexuality"]] * 2 + [[]] * (n - 2),
                          "sexuality_word": ["sex"] + [None] * (n - 1)})
    return {"topics": items, "with_topic": items.iloc[:40], "n_flagged": 6, "by_prompt": by_prompt,
            "no_topic": pd.DataFrame([rec("has a topic", "over"), rec("no topic", "under")]).set_index("topic"),
            "enrich": {"theme": pd.DataFrame([{**rec("nature", ""), "ratio_unstratified": 2.0}]),
                       "supersense": pd.DataFrame([rec("noun.act", "over"), rec("noun.food", "")])}}


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
    return results.chapter_results(mode, elo, results.run(elo), agreement, results.agreement_summary(agreement),
                                   aggregate, results.robustness(rob, 5), results.forms(fs, 5),
                                   results.topics(tp, share=0.1, aggregate="median", strata=1, n_resamples=99),
                                   results.trajectories(traj))


def test_the_results_of_planted_scores_are_typed_and_read_back(tmp_path):
    res = _results()
    run = res.run
    assert run.n_items == 60 and res.prompt_keys == run.prompt_keys == ["greatest", "prefer"]
    assert run.human_elo_same_across_prompts and run.n_models == 3 and run.n_prompts == 2 and not run.implicit
    a = res.agreement_summary
    assert len(res.agreement) == 6 and a.n_cells == 6 and {r.model for r in res.agreement} == {"A", "B", "C"}
    assert all(r.ci_low < r.rho < r.ci_high for r in res.agreement) and a.n_ci_above_0 == 6 and a.n_ci_below_0 == 0
    rhos = [r.rho for r in res.agreement]
    assert (a.worst_rho, a.best_rho) == (min(rhos), max(rhos)) and a.worst_rho <= a.median_rho <= a.best_rho
    rob = res.robustness
    assert len(rob.most_over) == 3 and rob.n_lists == len(rob.table) == 3 * 2 and rob.top_k == 5
    assert rob.shared_min <= rob.shared_max <= 5 and rob.n_weak == len(rob.weak) and rob.n_items == 60
    assert all(w.shared < results.ROBUST_SHARE * 5 for w in rob.weak)
    f = res.forms
    assert set(f.rank_diff) == {"dictionary word", "multi-word name"} and f.over_rank_diff == max(f.rank_diff.values())
    assert f.under_form != f.over_form and f.positive.n_items > 0 and (f.negative.n_items, f.negative.rank_diff) == (
        0, None)  # no negative word was planted
    t = res.topics
    assert (t.n_items, t.n_with_topic, t.n_flagged, t.strata, t.aggregate) == (60, 40, 6, 1, "median")
    nature = [r for r in t.themes_by_prompt if r.topic == "nature"]
    assert {r.prompt: r.direction for r in nature} == {"greatest": "over", "prefer": "none"}
    assert t.theme_prompts["life"] == {"over": ["prefer"], "under": ["greatest"]}
    assert [v.topic for v in t.by_theme] == ["life", "nature"] and t.mixed == ["life"] and t.n_mixed == 1
    assert [c.prompt for c in t.by_theme[0].cells] == ["greatest", "prefer"]
    assert (t.n_theme_tests, t.n_themes, t.n_prompts) == (4, 2, 2)
    assert (t.n_without_topic, t.n_not_wordnet_noun, t.n_no_word, t.share_with_topic) == (20, 19, 1, 40 / 60)
    assert (t.no_topic_flagged, t.n_sexuality, t.n_sexuality_other_word) == (3, 2, 1)
    assert (t.n_supersenses, t.n_supersenses_differ) == (2, 1) and t.supersenses_differ[0]["topic"] == "noun.act"
    tr = res.trajectories
    assert tr.n_items == 3 and tr.prompt_key == "greatest" and tr.widest_sd >= tr.median_sd
    write_results(res, tmp_path)
    assert read_results("elo_misalignment", tmp_path, results.EloMisalignmentResults) == res


def test_a_mode_or_aggregate_outside_the_choices_is_refused():
    with pytest.raises(ValueError):
        _results(mode="both")
    with pytest.raises(ValueError):
        _results(aggregate="trimmed")
