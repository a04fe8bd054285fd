"""The elo_misalignment chapter's sentences (templates/elo_misalignment.md.j2), rendered from its results sections as
the chapter does: the counts, the best and worst cells, the robust and fragile lists, the over- and under-valued
forms, each theme's prompts and the widest spread of planted inputs."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.elo_misalignment import results
from rmbook.chapters.elo_misalignment.analysis import EloScores
from rmbook.report.prose import render


def _say(part: str, **context) -> str:
    return render("elo_misalignment", part, **context)


def _elo(kinds: dict, same_elo: bool = True, n_items: int = 1200) -> EloScores:
    human = pd.DataFrame({"item": [f"i{k}" for k in range(n_items)]})
    return EloScores(pd.DataFrame(), list(kinds), {m: m for m in kinds}, kinds, ["greatest", "prefer"], human,
                     same_elo)


def test_run_line_counts_models_items_and_prompts():
    text = _say("run", s=results.run(_elo({"a": "RM score (published)", "b": "RM score (published)"})))
    assert text.startswith("This run compares **2 models** with the human ratings on **1,200 items** under **2 "
                           "prompts** (greatest, prefer).")
    assert text.endswith("one rating per item): confirmed in these files.") and "implicit" not in text


def test_run_line_flags_prompt_dependent_elo_and_implicit_rewards():
    text = _say("run", s=results.run(_elo({"lm": "LM log-prob"}, same_elo=False, n_items=30)))
    assert "**1 model**" in text and "**30 items**" in text and "NOT the case in these files" in text
    assert "Scores are the models' **implicit** rewards" in text
    # one trained RM among LMs: the scores are not all implicit
    assert "implicit" not in _say("run", s=results.run(_elo({"lm": "LM log-prob", "rm": "RM score"})))


def test_agreement_names_the_best_and_worst_cells_and_counts_those_against_people():
    ag = pd.DataFrame({"model": ["A", "A", "B", "B"], "prompt_key": ["greatest", "prefer", "greatest", "prefer"],
                       "rho": [0.41, 0.35, -0.22, 0.11], "ci_low": [0.3, 0.2, -0.3, -0.05],
                       "ci_high": [0.5, 0.45, -0.1, 0.2]})
    text = _say("agreement", s=results.agreement_summary(ag))
    assert text.startswith("Agreement ranges from ρ = -0.22 (B, *greatest*) to ρ = 0.41 (A, *greatest*); the median "
                           "over 4 model×prompt cells is ρ = 0.23.")
    assert "1 cell has a CI entirely below zero" in text


def _rob(shared: list[int]) -> dict:
    robust = pd.DataFrame({"prompt_key": ["greatest", "greatest", "pooled", "pooled"],
                           "direction": ["under", "over", "under", "over"], "shared": shared, "n": 10})
    return {"robust": robust, "consensus": pd.DataFrame({"item": range(1500)}), "method_rho": 0.934,
            "overlap_over": 0.7, "overlap_under": 0.9, "most_over": ["Taxes", "Mondays", "Spam"],
            "most_under": ["Love", "Family", "Music"]}


def test_robustness_names_the_extremes_and_the_lists_that_depend_on_the_aggregate():
    text = _say("robustness", s=results.robustness(_rob([10, 7, 9, 8]), 10))
    assert ("by the rank method the models most under-value *Love*, *Family*, *Music* and most over-value *Taxes*, "
            "*Mondays*, *Spam*") in text
    assert "Across the 4 top-10 lists, the two aggregates share 7 to 10 of 10 items" in text
    # 7 < 8 (80% of 10) is weak; 8 and above are not
    assert "they share fewer than 80% in 1 list: greatest, over: 7/10, so single items there depend" in text
    assert "order all 1,500 items similarly (Spearman ρ = 0.93" in text
    assert "share 70% of the over-valued and 90% of the under-valued items" in text


def test_robustness_says_robust_everywhere_when_every_list_shares_80_percent():
    text = _say("robustness", s=results.robustness(_rob([10, 8, 9, 8]), 10))
    assert "the lists are robust to that choice (at least 80% shared) everywhere" in text
    assert "fewer than 80%" not in text
    two = _say("robustness", s=results.robustness(_rob([5, 7, 9, 8]), 10))
    assert "in 2 lists: greatest, under: 5/10; greatest, over: 7/10, so single items" in two


def _forms(val_bands=("positive", "negative")) -> dict:
    form_mean = pd.DataFrame({"rank_diff": [120.4, -310.6, 500.0], "z_diff": [0.21, -0.55, 0.9],
                              "n_items": [150, 80, 5]}, index=["dictionary word", "multi-word name", "emoji"])
    val = pd.DataFrame({"rank_diff": [35.2, -80.7, 3.0], "z_diff": [0.1, -0.2, 0.0], "n_items": [60, 40, 300]},
                       index=["positive", "negative", "neutral"])
    return {"form_mean": form_mean, "valence_mean": val.loc[list(val_bands) + ["neutral"]],
            "big": form_mean[form_mean["n_items"] >= 20], "agree_sign": 2 / 3}


def test_forms_name_the_most_over_and_under_valued_big_forms():
    text = _say("forms", s=results.forms(_forms(), 20))
    # emoji has the largest rank difference but too few items to be named
    assert ("**dictionary word** items are the most over-valued form (mean rank difference +120, z difference "
            "+0.21)") in text
    assert "**multi-word name** items the most under-valued (-311, -0.55)" in text and "emoji" not in text
    assert "the same sign for 67% of the forms" in text
    assert "positive words have a mean rank difference of +35 (n = 60) and negative words -81 (n = 40)." in text


def test_forms_without_negative_words_print_no_nan():
    # a small run may hold no rated negative word: the sentence said "+nan (n = 0)"
    text = _say("forms", s=results.forms(_forms(val_bands=("positive",)), 20))
    assert "nan" not in text
    assert "positive words have a mean rank difference of +35 (n = 60) and negative words n/a (n = 0)." in text


def _by_prompt() -> pd.DataFrame:
    rec = lambda t, pr, d, ratio, p: {"topic": t, "prompt": pr, "direction": d, "ratio": ratio, "p": p / 2,
                                      "n_flagged": 6, "expected": 2.5, "p_fdr": p, "p_fdr_se": 0.0,
                                      "n_items": 10}
    return pd.DataFrame([rec("nature", "greatest", "over", 2.4, 0.004), rec("nature", "prefer", "", 1.1, 0.6),
                         rec("life", "greatest", "under", 0.3, 0.01), rec("life", "prefer", "over", 1.9, 0.03),
                         rec("art", "greatest", "", 1.0, 0.9), rec("art", "prefer", "", 0.9, 0.8)])


def _topics(by_prompt=None) -> dict:
    """What :func:`rmbook.chapters.elo_misalignment.analysis.undervalued_topics` returns, planted: 8 items, 6 with a
    topic."""
    topics = pd.DataFrame({"item": [f"i{k}" for k in range(8)],
                           "topic": ["noun.act", "noun.act", "noun.person", None, "noun.food", None, "noun.act",
                                     "noun.person"],
                           "rule": ["head", "head", "head", "not a WordNet noun", "head", "no word", "head", "head"],
                           "themes": [["human sexuality"], [], ["human sexuality"], [], [], [], [], ["nature"]],
                           "sexuality_word": [None, None, "gay", None, None, None, None, None]})
    stat = lambda t, d, ratio: {"topic": t, "direction": d, "n_items": 4, "n_flagged": 2, "expected": 0.8,
                                "ratio": ratio, "p_fdr": 0.012, "ratio_unstratified": ratio + 0.5}
    return {"topics": topics, "with_topic": topics.dropna(subset=["topic"]), "n_flagged": 2,
            "by_prompt": pd.DataFrame() if by_prompt is None else by_prompt,
            "no_topic": pd.DataFrame([{"topic": "no topic", "n_flagged": 1, "expected": 0.5, "p_fdr": 0.7}])
            .set_index("topic"),
            "enrich": {"supersense": pd.DataFrame([stat("noun.act", "over", 2.5), stat("noun.food", "", 1.0)]),
                       "theme": pd.DataFrame([stat("nature", "under", 0.4), stat("human sexuality", "over", 3.0)])}}


def _topic_test(tp: dict, share=0.1, aggregate="median", strata=10) -> results.TopicsResults:
    return results.topics(tp, share=share, aggregate=aggregate, strata=strata, n_resamples=99)


def test_themes_by_prompt_without_a_per_prompt_consensus():
    assert _say("themes_by_prompt", s=_topic_test(_topics())).startswith("No per-prompt consensus was given")


def test_themes_by_prompt_give_each_themes_prompts_and_flag_opposite_directions():
    text = _say("themes_by_prompt", s=_topic_test(_topics(_by_prompt())))
    assert ("Each prompt's 10% most undervalued items (median over models under that prompt) are tested for each "
            "theme, with one Benjamini–Hochberg FDR across the 6 theme × prompt tests (3 themes × 2 "
            "prompts)") in text
    lines = {ln.split("**")[1]: ln for ln in text.splitlines() if ln.startswith("- **")}
    assert lines["nature"].startswith("- **nature**: over-represented on *greatest*. *greatest* ×2.40 (6 vs 2.5, FDR "
                                      "p = 0.004)")
    assert lines["life"].startswith("- **life**: over-represented on *prefer*; under-represented on *greatest*.")
    assert lines["art"].startswith("- **art**: on no prompt different from other items after FDR.")
    assert list(lines) == ["art", "life", "nature"]  # in topic order, one line each (a tight list)
    assert text.endswith("**life** goes opposite ways on different prompts, so a pooled figure averages opposite "
                         "effects.")


def test_themes_on_one_prompt_say_prompt_and_no_theme_goes_both_ways():
    one = _by_prompt().query("prompt == 'greatest'")
    text = _say("themes_by_prompt", s=_topic_test(_topics(one), share=0.05, aggregate="mean"))
    assert "(3 themes × 1 prompt)" in text and "opposite ways" not in text
    assert "Each prompt's 5% most undervalued items (mean over models" in text


def test_topics_give_the_coverage_the_significant_supersenses_and_each_pooled_theme():
    section = _topic_test(_topics(_by_prompt()))
    text = _say("topics", s=section)
    assert text.startswith("6 of 8 items (75%) got a topic; 2 did not (no WordNet noun: 1; no word at all: 1).")
    assert "Items without a topic make up 1 of the 2 most undervalued items vs 0.5 expected (FDR p = 0.7)" in text
    assert "2 items are in *human sexuality*, 1 of them through a word of the title other than its head." in text
    assert "1 of 2 supersenses differ from their share among all items after FDR: noun.act over (2 vs 0.8)." in text
    themes = [ln for ln in text.splitlines() if ln.startswith("- **")]
    assert themes[0].startswith("- **human sexuality**")
    assert "**over-represented** among the most undervalued" in themes[0]
    assert "**under-represented**: the models undervalue these items *less* often" in themes[1]
    assert themes[1].endswith("; without the strata the ratio is 0.90.")
    assert _say("sexuality_heading", s=section) == ("Items placed in *human sexuality* by a title word other than the "
                                                    "head (1):")


def test_topics_without_strata_or_significant_supersenses():
    tp = _topics()
    tp["enrich"]["supersense"]["direction"] = ""
    text = _say("topics", s=_topic_test(tp, strata=1))
    assert "0 of 2 supersenses differ from their share among all items after FDR: none." in text
    assert "without the strata" not in text


def test_spread_names_the_item_with_the_widest_spread():
    spread = pd.Series([3.0, 12.5, 5.0], index=["Cats", "Taxes", "Music"])
    traj = {"spread": spread, "chosen": ["Cats", "Taxes"], "prompt_key": "greatest"}
    assert _say("spread", s=results.trajectories(traj)) == (
        "Across the models shown, an item's rank percentile varies with a median standard deviation of 5.0 points "
        "(item with the widest spread: *Taxes*, 12.5 points).")


def test_the_table_headings_name_the_aggregate():
    assert _say("under_heading", aggregate="mean") == ("**Most UNDER-valued by the models relative to people** (mean "
                                                       "over models; rank difference in brackets)")
    assert _say("over_heading", aggregate="median") == ("**Most OVER-valued by the models relative to people** "
                                                        "(median over models)")


def test_the_about_page_states_its_run_and_the_range_of_agreement():
    # the about page sets the same RMs against people with published scores (templates/about.md.j2)
    one = render("about", "run", prompt="What is best?", n_items=7530, n_models=1)
    assert one == "The prompt is *What is best?*. This page uses 7,530 items and 1 RM."
    assert render("about", "run", prompt="p", n_items=400, n_models=2).endswith("uses 400 items and 2 RMs.")
    ag = pd.DataFrame({"model": ["org/a", "org/b"], "rho": [0.612, 0.104]})
    assert render("about", "agreement", best=ag.iloc[0], worst=ag.iloc[-1]) == (
        "Agreement ranges from ρ = 0.10 (org/b) to ρ = 0.61 (org/a).")


def test_one_model_has_no_spread_and_says_so():
    """A compute-mode rerun with one model crashed here (the SD over one model is undefined: idxmax of all-NaN)."""
    spread = pd.Series([float("nan")] * 3, index=["Cats", "Taxes", "Music"])
    s = results.trajectories({"spread": spread, "chosen": ["Cats"], "prompt_key": "greatest"})
    assert s.widest_item is None and s.median_sd is None
    assert _say("spread", s=s).startswith("With one model there is no spread of an item's rank over models")
