"""The mere exposure chapter's sentences (templates/mere_exposure.md.j2), rendered from its results sections as the
chapter does: the per-model verdicts say what the counts say; every sentence states the numbers, matchings and
verdicts of planted inputs."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.mere_exposure import results
from rmbook.report.prose import render
from rmlib.data import RM_SCORE


def _say(part: str, section) -> str:
    return render("mere_exposure", part, s=section)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line]  # list items are lines of a tight list


def _by_model(pos_below: int) -> pd.DataFrame:
    return pd.DataFrame([
        {"prompts": pv, "source": s, "n_above": 4, "n_below": below, "n_models": 10, "outcome": "mixed"}
        for pv, below in (("positive", 0), ("negative", pos_below)) for s in ("bnc", "wordfreq")])


def test_mixed_says_when_models_go_significantly_the_other_way():
    # defect 9 of #25: "the right direction, but clear in too few models" although 2 RMs went the wrong way
    text = _say("verdicts", results.verdicts(_by_model(2)))
    neg = [line for line in _lines(text) if line.startswith("- **Negative")][0]
    pos = [line for line in _lines(text) if line.startswith("- **Positive")][0]
    assert "significantly the other way in 2 (BNC, exact word form), 2 (wordfreq)**." in neg
    assert "the right direction" not in neg
    assert "**is mixed with every matching (the right direction, but clear in too few models)**." in pos


def test_the_lm_control_section_is_omitted_in_published_mode():
    # #28 item 4: the published page printed a section only to say it was empty
    assert _say("lm_control", results.lm_control(pd.DataFrame(), "published")) == ""
    text = _say("lm_control", results.lm_control(pd.DataFrame(), "compute"))
    assert text.startswith("## Does the RM double-count") and "has a known reference LM" in text
    assert _lines(text)[0] == "## Does the RM double-count what the KL regulariser rewards?"


# --------------------------------------------------------------------------- planted inputs for every sentence

def test_published_level_counts_models_words_and_prompts():
    data = pd.DataFrame({"model": ["a", "a", "b", "b"], "word": ["love", "war", "love", "joy"],
                         "prompt_key": ["p1", "p2", "p1", "p1"], "reward_kind": RM_SCORE})
    text = _say("level", results.scores("published", data, {}))
    assert "The released scores of 2 of the paper's reward models for 3 distinct dictionary words" in text
    assert "under 2 prompts" in text


def test_compute_level_gives_the_range_of_word_tokens_per_model():
    data = pd.DataFrame({"model": ["lm"] * 3 + ["rm"] * 5, "prompt_key": ["p1"] * 8,
                         "token_id": [1, 2, 2, 10, 11, 12, 13, 14],
                         "reward_kind": ["LM log-prob"] * 3 + ["RM score"] * 5})
    text = _say("level", results.scores("compute", data, {}))
    assert "Full-vocabulary sweeps of 2 models under 1 prompt" in text
    assert "2 to 5 tokens per model" in text and "Reward kinds: lm = LM log-prob; rm = RM score." in text


def test_coverage_names_each_matching():
    data = pd.DataFrame({"model": ["a"], "word": ["love"], "prompt_key": ["p1"], "reward_kind": RM_SCORE})
    text = _say("coverage", results.scores("published", data, {"bnc": 0.42, "wordfreq": 0.987}))
    assert text.startswith("Words with a frequency: BNC, exact word form 42%; wordfreq 99%.")


def _shares(null_width: float) -> pd.DataFrame:
    rows = [("all", "bnc", 30, 40, 0.75), ("positive", "bnc", 15, 20, 0.75), ("positive", "wordfreq", 18, 20, 0.9),
            ("negative", "bnc", 6, 20, 0.3), ("negative", "bnc_lemma", 9, 20, 0.45)]
    return pd.DataFrame([{"prompts": pv, "source": s, "n_positive": k, "n_cells": n, "share": sh,
                          "null_low": 0.5 - null_width / 2, "null_high": 0.5 + null_width / 2, "p_greater": 0.0123}
                         for pv, s, k, n, sh in rows])


def test_shares_list_each_selected_matching_per_prompt_valence():
    text = _say("shares", results.shares(_shares(0.2), ["bnc", "wordfreq"]))
    pos, neg = _lines(text)[:2]
    assert pos == ("- **Positive prompts:** positive slopes in 15 of 20 cells (75%; BNC, exact word form; shuffled "
                   "shares 40%–60%, permutation p = 0.012), 18 of 20 cells (90%; wordfreq; shuffled shares "
                   "40%–60%, permutation p = 0.012).")
    assert neg.startswith("- **Negative prompts:** positive slopes in 6 of 20 cells (30%;") and "lemma" not in neg
    assert text.endswith("The shuffled baselines are narrow enough for the shares to be read against them.")


def test_shares_warn_when_the_shuffled_baselines_are_wide():
    section = results.shares(_shares(0.6), ["bnc"])
    assert (section.n_wide, section.n_rows) == (4, 4)  # the 'all' row is not counted; the four valenced rows are
    text = _say("shares", section)
    assert "In 4 of 4 rows the middle 95% of shuffled shares spans more than half the scale" in text
    assert "narrow enough" not in text


def test_dictionary_shares_name_the_combinations_below_the_rule():
    assert _say("dictionaries", results.dictionaries(pd.DataFrame())).startswith("Compute mode scores tokens")
    by_dict = pd.DataFrame({"dictionary": ["big2", "mfd2", "mfd2"], "prompts": ["positive", "positive", "negative"],
                            "source": ["bnc", "wordfreq", "bnc"], "share": [0.9, 0.8, 0.5], "n_positive": [9, 8, 5],
                            "n_cells": [10, 10, 10]})
    text = _say("dictionaries", results.dictionaries(by_dict))
    assert "Across the 3 dictionary × prompt valence × matching combinations" in text
    assert "ranges from 50% to 90%; 1 fall below 75%: mfd2, negative prompts, BNC, exact word form (5 of 10)." in text
    high = _say("dictionaries", results.dictionaries(by_dict.assign(share=[0.9, 0.8, 0.75])))
    assert high.endswith("ranges from 75% to 90%; none falls below 75%.")


def _verdicts(outcomes: dict) -> pd.DataFrame:
    return pd.DataFrame([{"prompts": pv, "source": s, "n_above": 9, "n_below": 0, "n_models": 10, "outcome": o}
                         for pv, per in outcomes.items() for s, o in per.items()])


def test_verdicts_hold_fail_or_depend_on_the_matching():
    text = _say("verdicts", results.verdicts(_verdicts({"positive": {"bnc": "holds", "wordfreq": "holds"},
                                                        "negative": {"bnc": "holds", "wordfreq": "fails"}})))
    pos, neg = _lines(text)
    assert ("above zero (95% CI, clustered by word) for 9 of 10 models (BNC, exact word form; below zero for 0), "
            "9 of 10 models (wordfreq; below zero for 0). By the claims page's rule (at least 75% of models for it to "
            "hold, as many the other way for it to fail)") in pos  # one bar both ways (#38)
    assert pos.endswith("the frequency preference **holds with every matching**.")
    assert neg.endswith("**depends on the matching (BNC, exact word form: holds, wordfreq: fails)**.")
    ne = _say("verdicts", results.verdicts(_verdicts({"positive": {"bnc": "not established"},
                                                      "negative": {"bnc": "fails"}})))
    assert "**is not established with any matching (no model's slope is clear either way)**." in ne
    assert "**fails with every matching**" in ne


def test_agreement_between_matchings():
    ag = pd.DataFrame({"a": ["bnc"], "b": ["wordfreq"], "rho": [0.834], "same_sign": [0.91]})
    assert _say("agreement", results.agreement(ag)) == (
        "**Do the matchings agree cell by cell?** BNC, exact word form vs wordfreq: Spearman ρ = 0.83, same sign in "
        "91% of cells.")


def test_lm_control_reports_lms_and_rms_separately():
    kl = pd.DataFrame({"reward_kind": ["LM log-prob", "LM log-prob", RM_SCORE, RM_SCORE, RM_SCORE],
                       "lm_slope": [0.12, 0.31, None, None, None],
                       "rho_reward_vs_lm_logprob": [None, None, 0.2, 0.4, 0.5],
                       "reward_slope": [None, None, 0.05, 0.1, 0.2],
                       "reward_slope_given_lm": [None, None, -0.02, 0.03, 0.04]})
    text = _say("lm_control", results.lm_control(kl, "compute"))
    assert "the frequency slope of the log-prob itself is +0.120 to +0.310 SD per Zipf unit" in text
    assert "correlate at Spearman ρ = 0.40 (median over prompts)" in text
    assert "frequency slope is +0.100; holding the LM log-prob fixed it is +0.030 (median)" in text
    lm_only = _say("lm_control", results.lm_control(kl[kl["reward_kind"] != RM_SCORE], "compute"))
    assert "No trained RM was given" in lm_only and "+0.120 to +0.310" in lm_only
    rm_only = _say("lm_control", results.lm_control(kl[kl["reward_kind"] == RM_SCORE], "compute"))
    assert "For the LM(s)" not in rm_only and "No trained RM" not in rm_only
