"""The "Value cards" page's sentences, rendered from planted summaries: one computed model or several, or none."""
from __future__ import annotations

from rmbook.chapters.value_cards.types import ComputedSummary, Trained, TrainedPair
from rmbook.report.prose import render

ONE = ComputedSummary(n_models=1, n_beyond_gap=0, beyond_gap=[], min_foundations_beyond=7, max_foundations_beyond=7,
                      max_tau=0.05, max_tau_model="tiny", max_tau_reference="S-Gem-27B", lowest_paper_tau=0.41,
                      n_below_paper_tau=1)


def test_one_computed_model_is_described_in_the_singular():
    text = render("value_cards", "computed", s=ONE)
    assert text.startswith("The computed model does not fall beyond all ten paper RMs") and "either prompt valence" in text
    assert "ten numbers for the moral foundations (five foundations × two valences), 7 fall beyond" in text
    assert "Kendall's τ = 0.05 (tiny with S-Gem-27B)" in text and "agree at τ = 0.41 or more" in text
    assert "it agrees with every paper RM less than any two paper RMs agree" in text and "per model" not in text
    assert "EloEverything" not in text  # no model with that agreement: no sentence about it
    elo = render("value_cards", "computed", s=ONE.model_copy(update=dict(n_elo=1, elo_beyond={"tiny": "above every paper RM"})))
    assert "Its agreement with people's EloEverything ratings (Spearman's ρ) falls beyond the range of the ten (above every paper RM)." in elo


def test_several_computed_models_are_counted_and_named():
    three = ONE.model_copy(update=dict(n_models=3, n_beyond_gap=2, beyond_gap=["a", "b"], min_foundations_beyond=3,
                                       n_below_paper_tau=2))
    text = render("value_cards", "computed", s=three)
    assert "Of the 3 computed models, 2 fall beyond all ten paper RMs" in text and "valence (a, b). Of each" in text
    assert "between 3 and 7 per model fall beyond" in text and "2 of the 3 agree with every paper RM less" in text
    elo = render("value_cards", "computed", s=three.model_copy(update=dict(n_elo=3, elo_beyond={"a": "below every paper RM"})))
    assert "falls beyond the range of the ten for 1 of the 3 computed models (a: below every paper RM)." in elo
    none = render("value_cards", "computed", s=three.model_copy(update=dict(n_elo=3)))
    assert "falls beyond the range of the ten for none of the 3 computed models." in none


def test_a_published_run_says_how_to_add_models_and_the_brief_opens_with_what_a_card_is():
    assert "`-p MODE compute`" in render("value_cards", "computed", s=None)
    brief = render("value_cards", "brief", s=ONE)
    assert brief.startswith("A value card places one reward model among the ten paper RMs")
    assert "The computed model does not fall beyond" in brief
    base = {"n_numbers": 12, "per_model": {"a": 0, "b": 2, "c": 1}, "mean": 1.0, "rate": 1 / 12}
    paper = render("value_cards", "paper", n=4, base=base)
    assert "4 paper RMs of ten fall beyond all the others" in paper and "whole 95% interval" in paper
    assert "Over the 12 gap and foundation numbers, a paper RM has 1.0 beyond the other nine on average (from 0 to 2)" \
        in paper  # #66 item 3: the base rate of "beyond"


def test_each_trained_rm_says_what_training_moved_and_a_missing_one_how_to_train_it():
    pair = TrainedPair(base="SmolLM2", rm="local:ft-s", gap_negative_base=-17.3, gap_negative_rm=-40.0,
                       gap_positive_base=-32.6, gap_positive_rm=-10.0, n_judged=12, n_outside=3, outside=["a", "b", "c"])
    text = render("value_cards", "trained", s=Trained(asked=["local:ft-s", "local:ft-g"], pairs=[pair],
                                                      missing={"local:ft-g": "no trained RM"}))
    assert "**SmolLM2** → `local:ft-s`: training moved 3 of the card's 12 numbers" in text and "(a; b; c)" in text
    assert "went from -17.3 to -40.0 under negative prompts and from -32.6 to -10.0 under positive" in text
    assert "1 trained RM asked for is not in this machine's cache yet (`local:ft-g`)" in text
    assert "make chapter NB=finetuning" in text
    assert "`TRAINED` is empty" in render("value_cards", "trained", s=Trained(asked=[], pairs=[], missing={}))
