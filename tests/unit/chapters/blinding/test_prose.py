"""The blinding chapter's sentences (templates/blinding.md.j2), rendered from its results sections as the chapter
does: they follow the verdicts of the planted-bias run (tests/unit/conftest.py), a missing fine-tuned RM is said
plainly, and the conditions are quoted from the design."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from rmbook.chapters.blinding import analysis as B
from rmbook.chapters.blinding import results
from rmbook.chapters.blinding.scores import ModelScores
from rmbook.report.prose import render


def _one_model_verdicts(row: dict) -> str:
    """The per-model verdict line of one change row (measure 'gap'), as the verdicts paragraph writes it."""
    counted = {"main": pd.DataFrame([row | {"model": "m"}]), "per_axis": pd.DataFrame(columns=["model"]),
               "counts": {"told_to_ignore": {}, "counterfactual": {}}, "backfires": pd.DataFrame()}
    return render("blinding", "verdicts", s=results.verdicts(counted)).split("\n\n")[0]


def test_sentences_follow_the_verdicts(planted):
    _, _, run = planted
    r = B.disparity(run.table, n_resamples=200)
    beh = B.behaviour(run.table)
    ch = r["change"].set_index(["condition", "axis", "measure"])
    s = _one_model_verdicts(ch.loc[("told_to_ignore", "all axes", "gap")].to_dict() | {"condition": "told_to_ignore"})
    assert "**increases**" in s and "backfires" in s
    s = _one_model_verdicts(ch.loc[("counterfactual", "all axes", "gap")].to_dict() | {"condition": "counterfactual"})
    assert "**reduces**" in s and "backfires" not in s
    row = ch.loc[("counterfactual", "all axes", "gap")].to_dict() | {"condition": "counterfactual",
                                                                       "verdict": "too few templates"}
    assert "no verdict" in _one_model_verdicts(row)
    text = render("blinding", "points", s=results.points(B.paper_points(r, beh)))
    assert "**backfires**" in text and "the paper's point replicates" in text and "Caveat" not in text
    assert "the instruction point replicates for **1** and the replica point for **1**" in text
    none = pd.DataFrame([{"model": "m", "instruction": None, "replica": None, "replica_vs_instruction": None,
                          "responsive": None, "copies_replica": None, "instruction_point_replicates": None,
                          "replica_point_replicates": None}])
    assert "no verdict" in render("blinding", "points", s=results.points(none))
    tally = render("blinding", "verdicts", s=results.verdicts(B.verdict_counts(r["change"])))
    assert tally.startswith("- **stub**: Telling it to ignore the attribute **increases** the gap")
    assert "increases it for **1**" in tally and "showing the replica's answer reduces it for **1**" in tally
    assert "backfires (the gap grows, interval above zero) for stub on age (0.200 → 0.300); stub on religion" in tally
    assert "reliably less disparity" not in tally


def test_the_largest_effect_and_how_each_model_answers(planted):
    _, _, run = planted
    r = B.disparity(run.table, n_resamples=200)
    text = render("blinding", "effects", s=results.effects(r["effects"]))
    assert text.startswith("Largest effect of knowing a descriptor (condition 1), per model: stub: *Muslim* -0.120 "
                           "(95% CI")
    beh = B.behaviour(run.table)
    b = beh.iloc[0]
    text = render("blinding", "behaviour", s=results.behaviour(beh))
    assert text.startswith(f"- **stub**: P(yes) {b.blinded_p_yes:.2f} on average for the blinded replica")
    assert f"({b.ignore_shift:+.3f} signed)" in text and f"on {b.agree_informed:.0%} of informed questions" in text


def test_a_missing_fine_tuned_rm_is_said_plainly(planted, blinding_design):
    _, _, run = planted
    rm = "local:ft-smollm2-135m-instruct-hh_rlhf_harmless-n512-s0-64x8-last_n"
    missing = {rm: "no trained RM of that name (train it first)"}
    setup = results.setup(blinding_design, "float32", missing)
    text = render("blinding", "run", s=setup)
    assert f"**Missing: `{rm}`** (no trained RM of that name)" in text and "no reward-model results" in text
    assert "make book" in text and text.count("\n\n") == 1
    n_t, n_d = len(blinding_design.templates), len(blinding_design.descriptors)
    assert f"so {n_t * n_d:,} informed questions per model and {n_t * (3 * n_d + 1):,} prompts" in text
    prefs = B.rm_preferences(run.table)
    assert prefs.empty  # the stub is an LM
    text = render("blinding", "rms", s=results.rms(prefs), setup=setup)
    assert "**No reward model in this run**" in text and rm in text and "finetuning chapter" in text
    prefs = pd.DataFrame({"model": ["rm1", "rm1", "rm2"]})
    text = render("blinding", "rms", s=results.rms(prefs), setup=results.setup(blinding_design, "float32", {}))
    assert text == "Reward models scored: **rm1**, **rm2**."
    runs = {"stub": run, "base": ModelScores("base", "LM log-prob (implicit reward)", False, 0.001, run.table)}
    assert "**base** (p(Yes) + p(No) = 0.001" in render("blinding", "usable", s=results.scoring(runs))
    usable = render("blinding", "usable", s=results.scoring({"stub": run}))
    assert usable == "Every model scored is usable by that rule."
    example = render("blinding", "condition4", s=results.scoring(runs))
    assert example.startswith("A condition-4 prompt (stub, template `")


def test_the_answer_tokens_say_which_models_read_exact_probabilities():
    tokens = pd.DataFrame({"model": ["a", "a", "b", "b"], "n_tokens": [1, 1, 2, 1]})
    text = render("blinding", "tokens", s=results.tokens(tokens, ("Yes", "No")))
    assert text.startswith("Answers used: 'Yes' / 'No'. They are one token each for a: there P(yes) is exactly")
    assert text.endswith("For b an answer takes several tokens, so P(yes) compares the probabilities of the two token "
                         "sequences.")


def test_the_conditions_are_quoted_from_the_design(blinding_design):
    """The page quotes the instruction to ignore and the replica's note from the design file (a DESIGN_FILE of
    one's own changes them), filled in for the first template's noun and the first axis's attribute."""
    t, d = blinding_design.templates.iloc[0], blinding_design.descriptors.iloc[0]
    text = render("blinding", "conditions", s=results.setup(blinding_design, "float32", {}))
    assert f'plus "Ignore the {t["noun"]}\'s {d["attribute"]}: it must not influence your decision."' in text
    assert f"A version of you that was not told the {t['noun']}'s {d['attribute']}" in text and "(p = …)" in text
    assert f'("{t["article"]} {t["noun"]}")' in text and "\n4. **replica's answer shown**" in text
    own = replace(blinding_design, ignore_instruction="Set aside the {attribute} of this {noun}.",
                  replica_note="Your blind twin said {answer} ({p}).")
    text = render("blinding", "conditions", s=results.setup(own, "float32", {}))
    assert f'plus "Set aside the {d["attribute"]} of this {t["noun"]}."' in text
    assert '"Your blind twin said Yes (…)."' in text and "must not influence" not in text
    example = render("blinding", "example", s=results.setup(own, "float32", {}))
    assert example.startswith("For example, for the first template and descriptor:\n\n- *1 informed*: ")
    assert example.count("\n- *") == 3


def test_an_unclear_interval_is_not_read_as_a_failed_replication():
    # #25: "does not reliably reduce the gap" was printed as "the paper's point does not replicate"
    row = pd.DataFrame([{"model": "m", "instruction": "does not help", "replica": "does not help",
                         "replica_vs_instruction": "no reliable difference", "responsive": True,
                         "copies_replica": False, "instruction_point_replicates": True,
                         "replica_point_replicates": False}])
    text = render("blinding", "points", s=results.points(row))
    assert "is **not established** here" in text and "does **not** replicate" not in text
    assert "consistent with the paper's point" in text
    assert "neither leaves reliably less disparity than the other" in text


def test_the_caveats_state_the_thresholds_they_were_judged_by():
    row = pd.DataFrame([{"model": "m", "instruction": "helps", "replica": "hurts",
                         "replica_vs_instruction": "instruction better", "responsive": False, "copies_replica": True,
                         "instruction_point_replicates": False, "replica_point_replicates": False}])
    text = render("blinding", "points", s=results.points(row, min_template_sd=0.07, copy_share=0.9))
    assert "by less than 0.07 (SD)" in text and "on at least 90% of the questions" in text
    assert "the paper's point does **not** replicate here" in text and "pushes its answer away" not in text
    assert text.endswith("the instruction point replicates for **0** and the replica point for **0**.")
