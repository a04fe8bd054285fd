"""The framing chapter's sentences (templates/framing.md.j2), rendered from its results sections as the chapter does:
a positive value is not called low; every sentence states the numbers, counts, verdicts and words of planted
inputs."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.claims.rules import MOST
from rmbook.chapters.framing import results
from rmbook.report.prose import render


def _disagreement(weak: str, mean_y, sources=("afinn", "warriner")) -> str:
    summaries = {"afinn": {"n": 10, "pos_prompts": {"holds": 8}, "neg_prompts": {"holds": 3}},
                 "warriner": {"n": 10, "pos_prompts": {"holds": 9}, "neg_prompts": {"holds": 7}}}
    down = pd.DataFrame({"word": ["slur", "war"], "mean_y": mean_y})
    extreme = pd.DataFrame({"word": ["slur", "war", "joy"], "afinn": [-3, -2, 3],
                            "afinn_extreme": [0.10, 0.30, 0.0], "warriner_extreme": [0.50, 0.70, 0.9]})
    named = pd.DataFrame({"word": ["cancer", "death"], "afinn_extreme": [0.8, 0.6], "warriner_extreme": [0.02, 0.04]})
    drivers = {"summaries": {s: summaries[s] for s in sources}, "weak": weak, "down": down, "extreme": extreme,
               "named_extreme": named, "worst_named": ["cancer", "death"]}
    return render("framing", "disagreement", s=results.disagreement(drivers))


def test_only_words_below_the_mean_are_called_so():
    # defect 9 of #25: "(a low value ...)" printed next to +0.3
    text = _disagreement("neg_prompts", [-1.2, 0.3])
    assert "(*slur* below the mean: the RMs do *not* offer them" in text and "*war* below" not in text
    assert "below the mean" not in _disagreement("neg_prompts", [0.3, 0.5])
    assert "(all below the mean: the RMs" in _disagreement("neg_prompts", [-0.3, -0.5])


# --------------------------------------------------------------------------- planted inputs for every sentence

def test_published_level_counts_words_per_dictionary_models_and_prompts():
    scores = pd.DataFrame({"word": ["love", "love", "hate", "war", "care", "war"],
                           "dictionary": ["big2", "big2", "mfd2", "both", "mfd2", "both"],
                           "model": ["a", "b", "a", "b", "a", "a"],
                           "prompt_key": ["p1", "p2", "p1", "p1", "p3", "p2"]})
    text = render("framing", "level", s=results.scored(scores, "published"))
    assert text.startswith("**Word level, published scores.**")
    assert "The released scores of 2 of the paper's reward models for 4 distinct dictionary words" in text
    assert "(1 only in the Big Two nouns, 2 only in MFD2, 1 in both," in text and "under 3 prompts." in text


def test_compute_level_gives_each_models_coverage_and_reward_kind():
    scores = pd.DataFrame({"model": ["lm", "lm", "rm"], "prompt_key": ["p1", "p2", "p1"],
                           "reward_kind": ["LM log-prob", "LM log-prob", "RM score"]})
    scores.attrs["coverage"] = {"lm": 0.625, "rm": 0.9}
    text = render("framing", "level", s=results.scored(scores, "compute"))
    assert text.startswith("**Token level, computed now.** Full-vocabulary sweeps of 2 models under 2 prompts")
    assert "not covered: lm: 62% of lexicon words matched, rm: 90% of lexicon words matched." in text
    assert "Reward kinds: lm = LM log-prob; rm = RM score. An LM's log-prob is an *implicit* reward" in text


def test_coverage_counts_positive_and_negative_words_of_the_main_lexicon():
    frames = {"afinn": pd.DataFrame({"word": ["good", "good", "nice", "bad"],
                                     "word_side": ["positive", "positive", "positive", "negative"]}),
              "vader": pd.DataFrame({"word": ["good", "bad", "ugly"]}), "warriner": pd.DataFrame({"word": ["a"]})}
    assert render("framing", "coverage", s=results.coverage(frames)) == (
        "With **AFINN**, 2 positive and 1 negative words have a score; words the lexicon rates 0 or does not list are "
        "left out. VADER: 3 words. WARRINER: 1 words.")
    only_pos = {"warriner": pd.DataFrame({"word": ["good"], "word_side": ["positive"]})}
    assert "1 positive and 0 negative words" in render("framing", "coverage", s=results.coverage(only_pos))


def _contrast() -> pd.DataFrame:
    return pd.DataFrame({"label": ["a", "b", "c"], "s_pp": [0.10, 0.30, 0.20], "s_pn": [-0.05, 0.0, 0.05],
                         "s_np": [-0.4, -0.2, 0.1], "s_nn": [0.02, 0.04, 0.03], "framing": [-0.12, 0.05, 0.31]})


def test_slopes_are_the_medians_over_models_each_in_its_place():
    text = render("framing", "slopes", s=results.slopes(_contrast(), "SD"))
    assert "Across 3 models, the median oriented slopes (SD per valence point)" in text
    assert ("under positive prompts +0.200 on positive words and -0.200 on negative words; under negative prompts "
            "+0.030 on negative words and +0.000 on positive words") in text


def _summary(pos_holds, neg_holds, patterns) -> dict:
    return {"n": 3, "patterns": patterns,
            "pos_prompts": {"holds": pos_holds, "reversed": 3 - pos_holds, "unclear": 0, "n": 3},
            "neg_prompts": {"holds": neg_holds, "reversed": 0, "unclear": 3 - neg_holds, "n": 3}}


BY_HALF = pd.DataFrame({"n_congruent_steeper": [7, 2], "n_cells": [8, 8]}, index=["pos_prompts", "neg_prompts"])


def _halves(summary, outcome) -> str:
    found = results.halves_found(summary, BY_HALF, outcome, _contrast(), unit="SD", main="afinn")
    return render("framing", "halves", s=found)


def test_halves_give_each_halfs_counts_cells_and_verdict():
    text = _halves(_summary(3, 1, {"both halves hold": 1, "first half only": 2}),
                   {"pos_prompts": "holds", "neg_prompts": "fails"})
    first, second, per_model = text.split("\n\n")
    assert first.startswith("**Positive prompts (first half).**")
    assert "with a CI above 0 for **3 of 3** models; the reverse for 0." in first
    assert "positive words are steeper in 7 of 8 model × prompt cells" in first
    assert "for **1 of 3** models; the reverse for 0. Prompt by prompt: 2 of 8 cells." in second
    assert per_model.startswith("**Per model:** 1 both halves hold; 2 first half only. By the claims page's rule")
    assert f"at least {MOST:.0%} of models" in text
    assert "with AFINN the first half: **holds**; the second half: **fails**." in text
    assert "opposite signs" not in text


def test_halves_explain_opposite_signs_with_the_range_of_the_pooled_contrast():
    text = _halves(_summary(2, 0, {"opposite signs": 2, "neither": 1}),
                   {"pos_prompts": "mixed", "neg_prompts": "fails"})
    assert "**Per model:** 2 opposite signs; 1 neither." in text
    assert "averages such halves to near zero (here it ranges from -0.120 to +0.310 SD per valence point)" in text


def test_disagreement_names_the_weak_half_the_words_and_their_extremeness():
    text = _disagreement("neg_prompts", [-1.2, 0.4])
    assert text.startswith("**Why the lexicons disagree.**")
    assert ("With AFINN the weaker half is the one under negative prompts (3 of 10 models hold it; WARRINER: 7)"
            in text)
    assert "pull it down most are *slur*, *war*, with mean standardised rewards -1.2, +0.4 under those prompts" in text
    assert "(*slur* below the mean: the RMs do *not* offer them" in text
    # only the negative-valence words (slur, war; not joy) enter the median extremeness
    assert "sit at a median of 0.20 (AFINN), 0.60 (WARRINER) of the way in" in text
    assert "(*cancer*, *death*) sit at 0.70 (AFINN), 0.03 (WARRINER)." in text


def test_disagreement_about_the_positive_half_has_no_below_the_mean_note():
    text = _disagreement("pos_prompts", [-1.2, -0.4])
    assert "under positive prompts (8 of 10 models hold it; WARRINER: 9)" in text
    assert "below the mean" not in text and "-1.2, -0.4 under those prompts. A slope" in text


def test_disagreement_with_one_lexicon_names_no_other():
    text = _disagreement("neg_prompts", [-1.2, 0.4], sources=("afinn",))
    assert "(3 of 10 models hold it)." in text and "median of 0.20 (AFINN) of the way in" in text


def test_the_table_headings_name_the_lexicon():
    assert render("framing", "drivers_heading", source="vader").startswith(
        "**VADER**: the words that move each half most (contribution summed over prompts, mean over models;")
    why = results.disagreement({"summaries": {"afinn": {"n": 1, "neg_prompts": {"holds": 0}}}, "weak": "neg_prompts",
                                "down": pd.DataFrame({"word": [], "mean_y": []}),
                                "extreme": pd.DataFrame({"afinn": [], "afinn_extreme": []}),
                                "named_extreme": pd.DataFrame({"afinn_extreme": []}), "worst_named": []})
    assert render("framing", "extreme_heading", s=why).startswith("The words that pull the weaker half down (AFINN),")


def test_top_words_lists_each_side_and_notes_the_mfd2_terms_only_for_published_scores():
    top = {"positive": (["love", "joy"], ["war", "slur"]), "negative": (["cancer", "death"], ["kindness", "hope"])}
    text = render("framing", "top_words", s=results.top_words(top, "published"))
    assert ("under positive prompts are love, joy and their lowest war, slur. Under negative prompts (the 'worst "
            "thing' questions) their highest-scored answers are cancer, death and their lowest kindness, hope") in text
    assert "obscenities and slurs" in text
    assert "obscenities" not in render("framing", "top_words", s=results.top_words(top, "compute"))
