"""The value chapters' sentences (templates/value_profiles.md.j2), rendered from the sections of
ValueProfilesResults as the chapters build them: the same facts the old prose functions (prose/values.py) stated,
read from the typed sections alone."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.analysis import families as fam
from rmbook.chapters.value_profiles import results
from rmbook.report.prose import render

FAMILIES = ("Gemma", "Llama")


def _say(part, **context):
    return render("value_profiles", part, **context)


def _scores(models, families, kind="RM score", prompts=("best_ever_one", "worst_ever_one"), words=("a", "b")):
    return pd.DataFrame([{"model": m, "family": f, "reward_kind": kind, "prompt_key": p, "word": w}
                         for m, f in zip(models, families) for p in prompts for w in words])


def test_what_was_scored_counts_models_by_family_and_names_the_prompt_subset():
    tables = {"published": _scores(["g1", "g2", "l1"], ["Gemma", "Gemma", "Llama"], words=("a", "b", "c")),
              "compute": _scores(["zeta", "alpha"], ["Qwen", "Gemma"], kind="LM log-prob",
                                 prompts=("best_ever_one", "greatest_ever_one", "worst_ever_one"))}
    text = _say("scores", s=results.scored(tables, words_per_category=7, compute_words_per_category=3))
    assert text.startswith("Published scores: 3 RMs (2 Gemma-based, 1 Llama-based), 2 prompts, 3 words.\n\n")
    assert "Computed scores: 2 models (alpha, zeta), 3 prompts, 2 words." in text
    assert "3 of the 54 prompts (adjectives best, greatest | worst; superlative ever; phrasing one)" in text
    assert "seeded sample of 3 per category (`COMPUTE_WORDS_PER_CATEGORY`)" in text
    assert text.endswith("All analyses use a seeded sample of 7 words per category (`WORDS_PER_CATEGORY`), so ranks "
                         "are among those words only.")
    only = _say("scores", s=results.scored({"published": tables["published"]}))
    assert only == "Published scores: 3 RMs (2 Gemma-based, 1 Llama-based), 2 prompts, 3 words."


def test_word_pair_names_models_and_counts_by_family():
    pair = pd.DataFrame({"nickname": ["A", "B", "C"], "family": ["Gemma", "Gemma", "Llama"],
                         "love": [1.0, 5.0, 2.0], "freedom": [3.0, 2.0, 9.0], "first": ["love", "freedom", "love"]})
    ranks = pd.DataFrame({"n_words": [263]})
    s = results.word_pair(pair, ranks, "love", "freedom", lexicon="Big Two nouns", models=["A", "Z"])
    text = _say("word_pair", s=s)
    assert "Ranks among the 263 Big Two nouns" in text and "**A** ranks *love* 1 and *freedom* 3." in text
    assert "Z" not in text and "Gemma: 1 of 2 rank love above freedom; Llama: 1 of 1" in text
    assert "skipped" in _say("word_pair", s=results.word_pair(None, ranks, "love", "freedom", lexicon="x"))


def test_comparison_says_why_there_is_none_and_qualifies_implicit_rewards():
    assert "rerun it with `MODE" in _say("comparison", s=results.direction_agreement(None, FAMILIES), mode="published")
    assert "No family comparison" in _say("comparison", s=None, mode="compute")
    c = {"n_prompts": 4, "n_words": 10, "same": 3, "panels": 4, "n_significant": 0, "unit": "prompt",
         "implicit": True}
    text = _say("comparison", s=results.direction_agreement(c, FAMILIES), mode="compute")
    assert "**same sign in 3 of 4 panels**" in text and "these particular models" in text and "log-probs" in text
    assert "Gemma-minus-Llama" in text
    plain = _say("comparison", s=results.direction_agreement({**c, "unit": "model", "implicit": False}, FAMILIES),
                 mode="compute")
    assert plain.endswith("are significant after FDR.")


def test_the_tables_left_out_are_the_only_ones_listed():
    tables = {"published": pd.DataFrame({"family": ["Gemma", "Llama"]}), "compute": pd.DataFrame({"family": ["Qwen"]})}
    text = _say("missing", s=results.left_out(tables, {"published": {}}, FAMILIES))
    assert text.startswith("**compute**") and "(families: Qwen)" in text and "published" not in text
    assert _say("missing", s=results.left_out(tables, {"published": {}, "compute": {}}, FAMILIES)) == ""


def test_interaction_separates_direction_from_significance():
    t = {"contrast": "c", "difference": 19.8, "p": 0.076, "n_a": 4, "n_b": 6, "min_attainable_p": 0.0095,
         "claimed_sign": 1, "per_model": []}
    text = _say("interaction", s=results.interaction(t))
    assert "+19.8 rank points" in text and "points the claimed way, but with 4 vs 6 models" in text
    assert "0.0095" in text
    assert "opposite direction" in _say("interaction", s=results.interaction({**t, "difference": -19.8, "p": 0.01}))
    assert "in the claimed direction" in _say("interaction", s=results.interaction({**t, "p": 0.01}))
    assert "does not point the claimed way" in _say("interaction", s=results.interaction({**t, "difference": -1.0}))


_PLANTED: dict = {}


@pytest.fixture
def planted(family_scores):
    """A planted family effect (5 vs 5 models; fitting it takes a second, so it is fitted once)."""
    if not _PLANTED:
        scores = family_scores(n_per_family=5, effect=3.0)
        _PLANTED["it"] = scores, fam.family_analysis(scores, n_resamples=999)
    return _PLANTED["it"]


def test_the_findings_state_the_tests_of_a_planted_effect(planted):
    scores, res = planted
    s = results.family_summary("published", res, scores, FAMILIES)
    text = _say("findings", s=s)
    assert text.startswith("**Published RM scores** (5 Gemma, 5 Llama models; 4 prompts; each model is one "
                           "replicate).")
    assert f"**{s.n_significant_fdr} of 4 panels show a significant Gemma–Llama difference" in text
    assert "Agency, positive" in text and "in 4 panels (category × valence)" in text
    assert "With 5 vs 5 models the smallest p an exact permutation test can give is 0.00794." in text
    assert "- Agency, positive: Gemma ranks it higher (median rank" in text and "significant at FDR 0.05)" in text
    assert "category F(1, " in text and "; category × valence × model F(" in text  # the ANOVA terms
    assert ("Mixed model (random intercept per model), family × category × valence term:" in text
            or any("mixed model" in n for n in s.notes))
    assert "**Computed scores (LM log-prob)**" in _say("findings", s=results.family_summary(
        "compute", res, scores.assign(reward_kind="LM log-prob"), FAMILIES))


def test_directions_and_the_headings_name_the_table(planted):
    scores, res = planted
    s = results.family_summary("published", res, scores, FAMILIES)
    text = _say("directions", s=s)
    assert text.startswith("**published**\n\n- Under negative prompts — Gemma ranks higher:")
    assert "- Under positive prompts — Gemma ranks higher: **Agency**; Llama ranks higher: **Communion**." in text
    assert _say("permutation_heading", s=s) == "**published**: permutation tests (FDR across panels)"
    assert _say("anova_heading", s=s) == "**published**: Type-II ANOVA, median rank ~ category × valence × model"
    assert _say("posthoc_heading", s=s) == "**published**: post-hoc Welch t-tests between families (FDR across all)"
    if s.mixed is not None:
        assert _say("mixed_heading", s=s).startswith(f"**published**: mixed model, {s.mixed.n_obs} median ranks, "
                                                     "10 models (converged: ")


def test_pooled_foundations_are_labelled_and_several_three_way_terms_counted(planted):
    scores = planted[0].rename(columns={"category": "foundation"})
    pooled = fam.family_analysis(scores, by=["foundation", "valence"], n_resamples=99)
    s = results.foundation_summary(pooled, scores, FAMILIES)
    assert _say("findings", s=s).startswith("**Published RM scores, virtue and vice pooled per foundation**")
    many = s.model_copy(update={"mixed_three_way": results.MixedThreeWay(
        n_terms=9, n_below_alpha=8, term="family[T.Llama]:foundation[T.loyalty.vice]:valence[T.positive]",
        estimate=3.84, ci_low=2.5, ci_high=5.2, p=0.001)})
    assert ("Mixed model (random intercept per model): 8 of 9 family × foundation × valence terms have p < 0.05 "
            "(largest: Llama × loyalty.vice × positive, 3.8 rank points [95% CI 2.5, 5.2]).") in _say("findings",
                                                                                                  s=many)
    one = s.model_copy(update={"mixed_three_way": many.mixed_three_way.model_copy(update={"n_terms": 1,
                                                                                          "p": 1.7e-6})})
    assert "family × foundation × valence term: 3.8 rank points [95% CI 2.5, 5.2], p < 0.001." in _say("findings",
                                                                                                      s=one)


def test_no_effect_reads_as_no_family_effect(family_scores):
    scores = family_scores(effect=0.0, seed=3)
    text = _say("findings", s=results.family_summary("published", fam.family_analysis(scores, n_resamples=999),
                                                      scores, FAMILIES))
    assert "no panel shows a significant Gemma–Llama difference" in text and "at the level of models." in text
    one = family_scores(n_per_family=1)
    text = _say("findings", s=results.family_summary("published", fam.family_analysis(one, n_resamples=99), one,
                                                      FAMILIES))
    assert "compare these particular models" in text and "between these models." in text
    assert "- Note: only 1 model in a compared family" in text
