"""The "Value cards" page's sentences, rendered from planted summaries: one computed model or several, or none."""
from __future__ import annotations

from rmbook.analysis.results.types.value_cards import ComputedSummary
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


def test_several_computed_models_are_counted_and_named():
    three = ONE.model_copy(update=dict(n_models=3, n_beyond_gap=2, beyond_gap=["a", "b"], min_foundations_beyond=3,
                                       n_below_paper_tau=2))
    text = render("value_cards", "computed", s=three)
    assert "Of the 3 computed models, 2 fall beyond all ten paper RMs" in text and "valence (a, b). Of each" in text
    assert "between 3 and 7 per model fall beyond" in text and "2 of the 3 agree with every paper RM less" in text


def test_a_published_run_says_how_to_add_models_and_the_brief_opens_with_what_a_card_is():
    assert "`-p MODE compute`" in render("value_cards", "computed", s=None)
    brief = render("value_cards", "brief", s=ONE)
    assert brief.startswith("A value card places one reward model among the ten paper RMs")
    assert "The computed model does not fall beyond" in brief
    paper = render("value_cards", "paper", n=4)
    assert "4 paper RMs of ten fall beyond all the others" in paper and "not a finding about those models" in paper
