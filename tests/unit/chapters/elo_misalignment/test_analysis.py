"""rmbook.chapters.elo_misalignment.analysis: planted scores of three models under two prompts. The agreement with
people, the consensus (median robust to one model, mean not), the top lists' robustness, the item forms, the topic
test's bookkeeping and the rank trajectories come out as planted; elo_scores reads the published files (skipped without
data) and, in compute mode, pivots a stub scorer's rewards."""
from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.elo_misalignment import analysis as hr

MODELS = ["org/a", "org/b", "org/c"]
LABEL = {m: m.split("/")[1].upper() for m in MODELS}
PROMPTS = ["greatest", "prefer"]
N = 60
OVER, UNDER, SPLIT = f"i{N - 1}", "i0", "i30"   # last for people/first for the RMs; the reverse; c alone disagrees


@functools.cache
def _elo() -> hr.EloScores:
    """Items i0..i59 in human order. Every model follows people (plus noise), rates multi-word names higher than
    people do (+3 SD of the human Elo), puts OVER at the top and UNDER at the bottom; model c alone puts SPLIT last."""
    rng = np.random.default_rng(0)
    human = pd.DataFrame({"item": [f"i{k}" for k in range(N)], "elo_score": np.linspace(2000, 1000, N),
                          "elo_rank": np.arange(1, N + 1)})
    form = np.where(human["elo_rank"] % 2, "dictionary word", "multi-word name")
    parts = []
    for key in PROMPTS:
        cols = {}
        for m in MODELS:
            s = human["elo_score"].to_numpy() / 100 + rng.normal(0, 0.5, N) + np.where(form == "multi-word name", 3, 0)
            s[N - 1], s[0] = 100.0, -100.0
            if m == "org/c":
                s[30] = -200.0
            cols[m] = s
        parts.append(human.assign(prompt_key=key, **cols))
    scores = pd.concat(parts, ignore_index=True)
    scores["form"] = np.tile(form, len(PROMPTS))
    scores["valence_band"] = np.where(scores["elo_rank"] % 3, "neutral", "positive")
    return hr.EloScores(scores, MODELS, LABEL, {m: "RM score (published)" for m in MODELS}, PROMPTS, human, True)


@functools.cache
def _tables():
    mis, cons = hr.consensus_tables(_elo())
    return mis, cons


# --------------------------------------------------------------------------- elo_scores

@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "both"}, "use 'published' or 'compute'"),
    ({"prompt_keys": ["nope"]}, r"PROMPT_KEYS \['nope'\] unknown"),
    ({"prompt_keys": []}, "unknown"),
    ({"mode": "compute"}, "needs MODELS"),
])
def test_elo_scores_refuses_bad_settings_before_reading_data(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hr.elo_scores(**kwargs)


def test_published_scores_are_the_same_items_under_every_prompt(data_ready):
    models = ["Ray2333/GRM-gemma2-2B-rewardmodel-ft", "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2"]
    elo = hr.elo_scores("published", models, ["greatest", "humans_most_prefer"], 30)
    assert elo.models == models and elo.prompt_keys == ["greatest", "humans_most_prefer"]
    assert len(elo.items) == 30 and elo.same_elo
    assert elo.scores.groupby("prompt_key")["item"].apply(set).map(lambda s: s == set(elo.items)).all()
    assert set(elo.scores.columns) >= {"item", "prompt_key", "elo_score", "elo_rank", "form", "valence_band", *models}
    assert elo.scores[models].notna().all().all()
    assert set(elo.kinds.values()) == {hr.RM_SCORE_PUBLISHED} and elo.label[models[0]] != models[0]
    # the human table is in human order
    assert elo.human["elo_rank"].is_monotonic_increasing
    with pytest.raises(ValueError, match="no published EloEverything scores"):
        hr.elo_scores("published", ["tiny-llama"], ["greatest"], 30)


def test_compute_mode_pivots_each_models_rewards_per_prompt(data_ready, monkeypatch):
    from rmlib.data import ELO_PROMPTS

    calls = []

    def answer_rewards(model, prompts, answers, *, progress, load):
        calls.append((model, list(prompts), len(answers)))
        # reward: the answer's length, plus 1000 under the 'greatest' prompt: both recoverable after the pivot
        return pd.DataFrame([{"model": model, "prompt": p, "answer": a, "reward_kind": "LM log-prob",
                              "reward": len(a) + (1000 if p == ELO_PROMPTS["greatest"].text else 0)}
                             for p in prompts for a in answers])

    monkeypatch.setattr(hr, "engine", SimpleNamespace(answer_rewards=answer_rewards))
    elo = hr.elo_scores("compute", ["tiny-llama"], ["greatest", "humans_most_prefer"], 20)
    assert calls == [("tiny-llama", [ELO_PROMPTS["greatest"].text, ELO_PROMPTS["humans_most_prefer"].text], 20)]
    assert elo.kinds == {"tiny-llama": "LM log-prob"} and elo.label == {"tiny-llama": "tiny-llama"}
    s = elo.scores
    assert len(s) == 40
    expected = s["item"].str.len() + np.where(s["prompt_key"] == "greatest", 1000, 0)
    assert (s["tiny-llama"] == expected).all()


# --------------------------------------------------------------------------- human_agreement

def test_agreement_is_plus_one_for_a_monotone_model_and_minus_one_for_a_reversed_one():
    rng = np.random.default_rng(1)
    elo = np.linspace(1000, 2000, 25)
    scores = pd.concat([pd.DataFrame({"prompt_key": k, "elo_score": elo, "same": np.log(elo), "rev": -elo,
                                      "noisy": elo / 100 + rng.normal(0, 2, 25)}) for k in PROMPTS])
    ag = hr.human_agreement(scores, ["same", "rev", "noisy"], {"same": "S"})
    assert list(ag["prompt_key"]) == ["greatest"] * 3 + ["prefer"] * 3
    assert list(ag["model"][:3]) == ["S", "rev", "noisy"]   # labelled where a label is given, else the id
    by = ag.set_index(["prompt_key", "model"])
    assert by.loc[("greatest", "S"), "rho"] == pytest.approx(1) and by.loc[("prefer", "S"), "tau"] == pytest.approx(1)
    rev = by.loc[("greatest", "rev")]
    assert rev["rho"] == pytest.approx(-1) and rev["tau"] == pytest.approx(-1)
    noisy = by.loc[("greatest", "noisy")]
    assert 0 < noisy["ci_low"] < noisy["rho"] < noisy["ci_high"] < 1 and 0 < noisy["tau"] < noisy["rho"]
    assert ag["model_prompt"].iloc[0] == "S · greatest"


# --------------------------------------------------------------------------- consensus_tables, method_robustness

def test_consensus_tables_label_the_models_and_pool_the_prompts():
    mis, cons = _tables()
    assert len(mis) == N * len(MODELS) * len(PROMPTS) and set(mis["model"]) == set(LABEL.values())
    assert set(cons) == set(hr.AGGREGATES)
    for agg, c in cons.items():
        assert c.groupby("prompt_key").size().to_dict() == {"greatest": N, "prefer": N, "pooled": N}
        pooled = c[c["prompt_key"] == "pooled"].set_index("item")
        assert pooled["rank_diff"].idxmax() == OVER and pooled["rank_diff"].idxmin() == UNDER
        assert pooled.loc[OVER, "rank_diff"] == N - 1 and pooled.loc[OVER, "share_over"] == 1.0
        assert set(hr.EXTRA) <= set(c.columns)


def test_the_median_is_robust_to_one_model_and_the_mean_is_not():
    _, cons = _tables()
    pooled = {agg: c[c["prompt_key"] == "pooled"].set_index("item")["rank_diff"] for agg, c in cons.items()}
    # c puts SPLIT last (rank difference -29); a and b place it like its neighbours of the same form (i28, i32)
    neighbours = pooled["median"][["i28", "i32"]].mean()
    assert pooled["median"][SPLIT] == pytest.approx(neighbours, abs=1)
    assert pooled["mean"][SPLIT] < pooled["median"][SPLIT] - 4
    assert pooled["mean"][["i28", "i32"]].mean() == pytest.approx(neighbours, abs=1)


def test_method_robustness_reports_the_planted_extremes_and_the_overlaps():
    _, cons = _tables()
    with pytest.raises(ValueError, match="AGGREGATE='max'"):
        hr.method_robustness(cons, "max", 3)
    rob = hr.method_robustness(cons, "median", 3)
    assert rob["other"] == "mean" and rob["most_over"][0] == OVER and rob["most_under"][0] == UNDER
    assert len(rob["consensus"]) == N and set(rob["consensus"]["prompt_key"]) == {"pooled"}
    r = rob["robust"]
    lists = {(k, d) for k in [*PROMPTS, "pooled"] for d in ("under", "over")}
    assert set(zip(r["prompt_key"], r["direction"])) == lists
    assert r["shared"].between(0, 3).all() and {"only_median", "only_mean"} <= set(r.columns)
    # the planted +-100 outliers squash every other z-score, so the two methods agree only in part
    assert 0 < rob["method_rho"] < 0.9
    assert 0 <= rob["overlap_over"] <= 1 and 0 <= rob["overlap_under"] <= 1
    assert hr.method_robustness(cons, "mean", 3)["other"] == "median"


# --------------------------------------------------------------------------- form_summary

def test_form_summary_finds_the_planted_over_valued_form():
    mis, cons = _tables()
    consensus = cons["median"][cons["median"]["prompt_key"] == "pooled"]
    fs = hr.form_summary(mis, consensus, n_resamples=99, min_items=5)
    fm = fs["form_mean"]
    assert fm.loc["multi-word name", "rank_diff"] > 0 > fm.loc["dictionary word", "rank_diff"]
    assert fm["n_items"].to_dict() == {"dictionary word": 30, "multi-word name": 30}
    assert fm.loc["multi-word name", "share_models_ci_above_0"] == 1.0
    assert fm.loc["dictionary word", "share_models_ci_below_0"] == 1.0
    assert fm.loc["multi-word name", "share_models_ci_below_0"] == 0.0
    assert fs["agree_sign"] == 1.0 and list(fs["big"].index) == list(fm.index)
    assert fs["valence_mean"]["n_items"].to_dict() == {"neutral": 40, "positive": 20}
    assert fs["by_form"]["model_cat"].str.contains(" · ").all()
    with pytest.raises(ValueError, match="no item form has 31 items"):
        hr.form_summary(mis, consensus, n_resamples=9, min_items=31)


# --------------------------------------------------------------------------- topics

def test_theme_prompts_and_the_summary_records():
    by_prompt = pd.DataFrame([
        {"topic": t, "prompt": p, "direction": d, "ratio": 2.0, "p": 0.01, "p_fdr": 0.02, "p_fdr_se": 0.001,
         "n_flagged": 3,
         "expected": 1.5, "n_items": 10}
        for t, p, d in (("nature", "greatest", "over"), ("nature", "prefer", "under"), ("art", "greatest", ""),
                        ("art", "prefer", ""), ("life", "greatest", "over"), ("life", "prefer", "over"))])
    tp = hr.theme_prompts(by_prompt)
    assert tp == {"art": {"over": [], "under": []}, "life": {"over": ["greatest", "prefer"], "under": []},
                  "nature": {"over": ["greatest"], "under": ["prefer"]}}
    items = pd.DataFrame({"item": list("abcd"), "topic": ["x", None, "y", None]})
    rec = lambda t: {"topic": t, "direction": ""}
    summary = hr.topics_summary({"topics": items, "with_topic": items.dropna(), "n_flagged": 1, "by_prompt": by_prompt,
                                 "no_topic": pd.DataFrame([rec("no topic")]).set_index("topic"),
                                 "enrich": {"theme": pd.DataFrame([rec("nature")]),
                                            "supersense": pd.DataFrame([rec("noun.act")])}},
                                share=0.25, strata=1, n_resamples=99)
    assert (summary["n_items"], summary["n_with_topic"], summary["n_flagged"]) == (4, 2, 1)
    assert [r["direction"] for r in summary["themes_by_prompt"] if r["topic"] == "art"] == ["none", "none"]
    assert summary["theme_prompts"] == tp and summary["no_topic"] == [{"topic": "no topic", "direction": ""}]
    empty = hr.topics_summary({**{"topics": items, "with_topic": items.dropna(), "n_flagged": 1,
                                  "no_topic": pd.DataFrame([rec("no topic")]).set_index("topic"),
                                  "enrich": {"theme": pd.DataFrame(), "supersense": pd.DataFrame()}},
                               "by_prompt": pd.DataFrame()}, share=0.25, strata=1, n_resamples=99)
    assert empty["themes_by_prompt"] == [] and empty["theme_prompts"] == {}


def _planted_topics(nouns: list[str], nature: list[str]):
    """A stand-in for :func:`rmbook.chapters.elo_misalignment.topics.item_topics` (no WordNet): nouns get a supersense,
    ``nature`` nouns the theme too, anything else no topic."""
    def item_topics(items, wn=None):
        rows = [{"item": i, "head": i.lower() if i in nouns else None,
                 "rule": "single word" if i in nouns else "no word",
                 "topic": ("noun.artifact" if k % 2 else "noun.food") if i in nouns else None,
                 "themes": ["nature"] if i in nature else [], "sexuality_word": None}
                for k, i in enumerate(dict.fromkeys(items))]
        return pd.DataFrame(rows)
    return item_topics


def test_items_without_a_topic_and_a_theme_planted_among_the_most_undervalued(monkeypatch):
    nouns = [f"noun{k}" for k in range(90)]
    blanks = [f"{k}{k}{k}" for k in range(100, 110)]   # no word at all: no topic
    items = nouns + blanks
    monkeypatch.setattr(hr, "item_topics", _planted_topics(nouns, nature=nouns[:20]))
    rng = np.random.default_rng(2)
    # the most undervalued 10: six of the ten items without a topic (1 expected) and four nature nouns
    planted = np.select([np.isin(items, blanks[:6]), np.isin(items, nouns[:4])], [-500.0, -400.0], 0.0)
    consensus = pd.DataFrame({"item": items, "human_rank": rng.permutation(len(items)) + 1,
                              "rank_diff": planted + rng.normal(0, 10, 100)})
    per_prompt = pd.concat([consensus.assign(prompt_key="greatest"),
                            consensus.assign(prompt_key="pooled", rank_diff=-consensus["rank_diff"])])
    tp = hr.undervalued_topics(consensus, per_prompt=per_prompt, share=0.1, strata=1, n_resamples=199)
    assert tp["n_flagged"] == 10 and len(tp["topics"]) == 100
    assert len(tp["with_topic"]) == 90 and not tp["with_topic"]["item"].isin(blanks).any()
    nt = tp["no_topic"]
    assert nt.loc["no topic", "n_flagged"] == 6 and nt.loc["no topic", "expected"] == pytest.approx(1.0, abs=0.2)
    assert nt.loc["no topic", "direction"] == "over" and nt.loc["has a topic", "n_flagged"] == 4
    # the four flagged nouns are all nature (20 of the 90 with a topic): over-represented, pooled and per prompt
    theme = tp["enrich"]["theme"].set_index("topic")
    assert theme.loc["nature", "n_flagged"] == 4 and theme.loc["nature", "direction"] == "over"
    assert {"ratio_unstratified", "p_fdr_unstratified"} <= set(theme.columns)
    # the 'pooled' rows of the per-prompt table are not a prompt (reversed there, they would flag other items)
    bp = tp["by_prompt"]
    assert set(bp["prompt"]) == {"greatest"} and bp.set_index("topic").loc["nature", "n_flagged"] == 4
    assert hr.undervalued_topics(consensus, share=0.1, strata=1, n_resamples=99)["by_prompt"].empty


# --------------------------------------------------------------------------- rank_trajectories

def test_rank_trajectories_choose_the_planted_items_and_the_widest_spread():
    elo = _elo()
    _, cons = _tables()
    consensus = cons["median"][cons["median"]["prompt_key"] == "pooled"]
    traj = hr.rank_trajectories(elo, consensus, 3)
    assert traj["prompt_key"] == "greatest" and traj["order"] == ["humans", "A", "B", "C"]
    # one each: the most over-valued, the most under-valued, the humans' favourite (UNDER again: not repeated)
    assert traj["chosen"] == [OVER, UNDER]
    t = traj["traj"].set_index(["item", "ranker"])["rank percentile"]
    assert t[(UNDER, "humans")] == pytest.approx(100 / N) and t[(OVER, "humans")] == pytest.approx(100)
    assert t[(OVER, "A")] == pytest.approx(100 / N) and len(traj["traj"]) == 2 * 4
    assert traj["spread"].idxmax() == SPLIT and traj["spread"][OVER] == pytest.approx(0)
    assert len(hr.rank_trajectories(elo, consensus, 1)["chosen"]) == 2   # at least one of each kind


def test_first_items_puts_items_in_columns_and_models_in_rows():
    """#43 item 3: the about page showed the data's first rows with 14 columns, ten of them RM ids."""
    import pandas as pd

    from rmbook.chapters.elo_misalignment.analysis import first_items

    models = ["Ray2333/GRM-gemma2-2B-rewardmodel-ft", "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2"]
    df = pd.DataFrame({"item": [f"i{k}" for k in range(7)], "elo_rank": range(1, 8), "elo_score": [1.0] * 7,
                       "elo_matches": [3] * 7, models[0]: range(7), models[1]: range(7)})
    view = first_items(df, models)
    assert list(view.columns) == ["i0", "i1", "i2", "i3", "i4"]
    assert list(view.index) == ["Elo rank", "Elo score", "matches", "R-Gem-2B", "S-Lla-8B-v0.2"]
    assert view.loc["R-Gem-2B", "i3"] == 3
