"""The implicit_vs_explicit chapter's sentences (templates/implicit_vs_explicit.md.j2), rendered from its results
sections as the chapter does: the same facts the old prose functions stated, now read from the typed sections."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.implicit_vs_explicit import results
from rmbook.chapters.implicit_vs_explicit.analysis import pattern_verdict
from rmbook.report.prose import render


def verdict_markdown(verdict, gaps, base):
    return render("implicit_vs_explicit", "verdict", s=results.verdict(verdict, gaps, base))


def displacement_markdown(summary, held=None):
    return render("implicit_vs_explicit", "displacement", s=results.displacement(summary),
                  h=None if held is None else results.heldout(held))


def _gaps(drop, domain):
    """Paired gaps with the given (gap, ci_low, ci_high) for the token-shift drop and one domain set."""
    return pd.DataFrame([{"eval_set": "token_shift_drop", "gap": drop[0], "ci_low": drop[1], "ci_high": drop[2],
                          "n": 50},
                         {"eval_set": "domain:ultrafeedback", "gap": domain[0], "ci_low": domain[1],
                          "ci_high": domain[2], "n": 50}])


@pytest.mark.parametrize("drop, domain, says", [
    ((0.10, 0.02, 0.18), (0.05, -0.02, 0.12), "The published pattern **replicates**"),
    ((-0.10, -0.18, -0.02), (0.05, -0.02, 0.12), "**does not replicate** for these two RMs: the token-level half"),
    ((0.04, -0.07, 0.13), (-0.15, -0.24, -0.06), "**does not replicate** for these two RMs: the domain half"),
    # below 0 but reaching past the margin of -0.05: not shown to be worse by more than the margin
    ((0.04, -0.07, 0.13), (-0.10, -0.18, -0.02), "**not established** for these two RMs: the token-level half is "
                                                  "not established; the domain half is not established."),
    # the full run's case: an interval across 0 (or across -0.05) is evidence neither for nor against the paper
    ((0.04, -0.07, 0.13), (0.04, -0.06, 0.14), "**not established** for these two RMs: the token-level half is "
                                                "not established; the domain half is not established."),
])
def test_the_overall_sentence_follows_the_halves(drop, domain, says):
    gaps = _gaps(drop, domain)
    text = verdict_markdown(pattern_verdict(gaps), gaps, "tiny-llama")
    assert says in text
    assert ("does not replicate" in text.split("\n\n")[-1]) == ("does not replicate" in says)
    assert "With a margin of 0.05 accuracy, a source counts as comparable or better when its IM − EX CI lies above " \
           "−0.05, as worse when it lies below −0.05" in text
    kind = pattern_verdict(gaps)["domain_sets"]["ultrafeedback"]
    assert f"ultrafeedback {domain[0]:+.3f} ({domain[1]:.3f} to {domain[2]:.3f}): {kind}." in text


def test_the_same_width_on_either_side_of_the_margin_gives_mirror_outcomes():
    """Comparable-or-better and worse are judged on the same footing around -0.05: an interval 0.02 clear of it on
    either side is comparable or worse; the same interval nearer than its half-width is not established either way
    (the old rule called any interval not below 0 comparable, so [-0.12, +0.02] 'replicated')."""
    def kind(lo, hi):
        return pattern_verdict(_gaps((0.1, 0.02, 0.18), ((lo + hi) / 2, lo, hi)))["domain_sets"]["ultrafeedback"]
    assert (kind(-0.03, 0.11), kind(-0.21, -0.07)) == ("comparable or better", "worse")
    assert kind(-0.12, 0.02) == kind(-0.08, 0.06) == "not established"
    assert pattern_verdict(_gaps((0.1, 0.02, 0.18), (-0.05, -0.12, 0.02)))["domain"] == "not established"


def _summary(**kw):
    s = {"window": 5, "n_steps": 64, "margin_start": 0.0, "margin_end": 0.06, "margin_change": 0.06,
         "logratio_chosen_start": 0.0, "logratio_chosen_end": -1.0, "logratio_chosen_change": -1.0,
         "logratio_rejected_start": 0.0, "logratio_rejected_end": -1.6, "logratio_rejected_change": -1.6,
         "logp_chosen_start": -63.8, "logp_chosen_end": -68.7, "logp_chosen_change": -4.9,
         "logp_rejected_start": -68.0, "logp_rejected_end": -70.9, "logp_rejected_change": -2.9, "displaced": True}
    return {**s, **kw}


def _held(chosen, rejected=(-2.3, -2.8, -1.8), n=150):
    return pd.DataFrame([{"completion": "chosen", "mean": chosen[0], "ci_low": chosen[1], "ci_high": chosen[2], "n": n},
                         {"completion": "rejected", "mean": rejected[0], "ci_low": rejected[1],
                          "ci_high": rejected[2], "n": n}])


def test_displacement_sentence_quotes_the_log_ratios_it_concludes_from():
    """The full run's case: the raw batch log-probs fell more for the chosen (-4.9) than for the rejected (-2.9);
    the sentence used to say DPO pushed the rejected response down faster next to those numbers. Now the mechanism
    is stated from the log-ratios, and only when they show it."""
    text = displacement_markdown(_summary())
    assert "**Likelihood displacement**" in text and "fell further (-1.60 vs -1.00 nats)" in text
    assert "from +0.00 to -1.00 nats for the chosen completion" in text
    # the rejected completion did not fall further: no such claim
    same = displacement_markdown(_summary(logratio_rejected_end=-0.5, margin_end=-0.05, margin_change=-0.05,
                                          displaced=False))
    assert "fell further" not in same and "**No likelihood displacement**" in same and "did not grow" in same


@pytest.mark.parametrize("chosen, says", [
    ((-1.46, -1.9, -1.0), "less likely than under the reference there too"),
    ((-0.2, -0.6, 0.2), "displacement is not established on held-out pairs"),
    ((0.5, 0.2, 0.8), "became *more* likely"),
])
def test_heldout_displacement_follows_the_interval(chosen, says):
    text = displacement_markdown(_summary(), _held(chosen))
    assert says in text and "On 150 held-out pairs after training" in text
    assert f"{chosen[0]:+.2f} nats for the chosen completion ({chosen[1]:.3f} to {chosen[2]:.3f})" in text


def test_an_rm_below_chance_on_a_domain_set_is_flagged():
    """The full run's case: the EX-RM scored 0.347 (0.273 to 0.420) on HH-helpful after training on HH-harmless, so
    the IM-RM's +0.127 there is partly the EX-RM having learnt more of a preference that source labels the other
    way. The verdict says so; an RM whose CI reaches 0.5 is not flagged."""
    gaps = _gaps((0.04, -0.07, 0.13), (0.13, 0.03, 0.23))
    acc = pd.DataFrame([
        {"rm": "EX-RM", "eval_set": "domain:ultrafeedback", "accuracy": 0.347, "ci_low": 0.273, "ci_high": 0.420},
        {"rm": "IM-RM", "eval_set": "domain:ultrafeedback", "accuracy": 0.473, "ci_low": 0.393, "ci_high": 0.547},
        {"rm": "EX-RM", "eval_set": "in_distribution", "accuracy": 0.3, "ci_low": 0.2, "ci_high": 0.4}])
    v = pattern_verdict(gaps, acc=acc)
    assert [(b["rm"], b["eval_set"]) for b in v["below_chance"]] == [("EX-RM", "domain:ultrafeedback")]
    # the set is not counted as evidence of generalisation, though its CI lies above -0.05
    assert v["domain_sets"] == {"ultrafeedback": "not established (below chance)"} and v["domain"] == "not established"
    assert pattern_verdict(gaps)["domain"] == "replicates"
    text = verdict_markdown(v, gaps, "smollm2")
    assert "**Caveat:** on `domain:ultrafeedback` the EX-RM is *below* chance (0.347, 0.273 to 0.420)" in text
    assert "that source is not counted for the domain half" in text
    assert "**Domain shift: not established.**" in text
    assert "IM-RM is *below*" not in text and "in_distribution" not in text
    assert "**Caveat:**" not in verdict_markdown(pattern_verdict(gaps), gaps, "smollm2")


def test_the_training_sentence_states_the_shared_config_and_where_the_ex_rm_came_from():
    run = {"base_model": "tiny-llama", "n_pairs": 48, "sources": ["a", "b"], "steps": 16, "batch_size": 8,
           "method": "full", "lr": 2e-3, "max_len": 96, "seed": 0, "data_hash": "h"}
    def text(reused, same_order=True, im_hash="h"):
        runs = {"ex": SimpleNamespace(run=run), "im": SimpleNamespace(run={**run, "beta": 0.1, "data_hash": im_hash}),
                "ex_reused": reused}
        return render("implicit_vs_explicit", "training", s=results.training(runs, same_order))
    same = text(False)
    assert same.startswith("Both RMs start from **tiny-llama** and train on 48 pairs of a, b for 16 steps of 8 pairs "
                           "(full, lr 0.002, 96 tokens, seed 0); their data hashes and their step-by-step data order "
                           "are **identical**. The IM-RM's β is 0.1. The EX-RM was trained here")
    assert "reused, not retrained" in text(True)
    assert "**their data differ**" in text(True, same_order=False)
    assert "**their data differ**" in text(True, im_hash="x")


def test_the_sets_the_accuracy_lines_and_the_overlap_say_what_the_tables_hold():
    sets = pd.DataFrame({"eval_set": ["in_distribution"] * 2 + ["token_shift"] * 2,
                         "changed": [False, False, True, False],
                         "kept_words": [np.nan, np.nan, 0.5, 1.0]})
    text = render("implicit_vs_explicit", "shift", s=results.shift(sets, ["casing", "synonyms"]))
    assert text == ("Evaluation sets: `in_distribution` (2 pairs), `token_shift` (2 pairs). The token shift (casing, "
                    "synonyms) changed 50% of the pairs and kept, on average, 75% of each response's words "
                    "(median 75%).")
    acc = pd.DataFrame({"rm": ["IM-RM", "EX-RM"], "eval_set": "in_distribution", "accuracy": [0.9, 0.8],
                        "ci_low": [0.8, 0.7], "ci_high": [1.0, 0.9]})
    gaps = pd.DataFrame({"eval_set": ["in_distribution", "token_shift_drop"], "gap": [0.1, 0.0],
                         "ci_low": [-0.05, 0.0], "ci_high": [0.25, 0.0], "n": [24, 24]})
    text = render("implicit_vs_explicit", "accuracy", s=results.accuracy(acc, gaps, "IM-RM", "EX-RM"))
    assert text == ("* `in_distribution`: IM-RM 0.900 (0.800 to 1.000), EX-RM 0.800 (0.700 to 0.900); paired "
                    "difference IM − EX +0.100 (-0.050 to 0.250), n = 24.")
    corr = pd.DataFrame({"rm": ["EX-RM", "IM-RM"], "eval_set": "token_shift", "feature": "kept_words (margin change)",
                         "rho": [0.3, np.nan], "ci_low": [-0.1, np.nan], "ci_high": [0.6, np.nan], "n": [16, 16]})
    text = render("implicit_vs_explicit", "overlap", s=results.overlap(corr))
    assert text == ("* EX-RM, `token_shift`, kept_words (margin change): ρ = +0.30 (-0.10 to +0.60), n = 16.\n"
                    "* IM-RM, `token_shift`, kept_words (margin change): undefined (the feature is constant), n = 16.")
