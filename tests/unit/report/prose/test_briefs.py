"""Every chapter's "In brief" (#43 item 1): the macros of the chapters the claims page does not read, rendered from
planted results sections as the chapters do, and each saying what it found from those fields alone."""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from rmbook.chapters.blinding import results as blinding
from rmbook.chapters.claims import results as claims_results
from rmbook.chapters.longer_answers import results as longer_answers
from rmbook.chapters.method import results as method
from rmbook.report.prose import render
from tests.unit.chapters.longer_answers.test_prose import COMPARISON, PUBLISHED
from tests.unit.chapters.method.test_prose import AUDIT, _extremes


def test_the_about_brief_gives_the_range_of_agreement_or_the_one_model():
    best, worst = SimpleNamespace(rho=0.61, model="A"), SimpleNamespace(rho=0.12, model="B")
    text = render("about", "brief", prompt="Greatest?", n_items=7530, n_models=3, best=best, worst=worst)
    assert "Asked *Greatest?*" in text and "the same 7,530 EloEverything items" in text
    assert "between 0.12 (B) and 0.61 (A) across 3 RMs" in text
    one = render("about", "brief", prompt="Greatest?", n_items=10, n_models=1, best=best, worst=best)
    assert "with Spearman's ρ = 0.61 (A)." in one and "across" not in one


def test_the_method_brief_names_the_extremes_and_why_ids_are_scored():
    text = render("method", "brief", ext=_extremes(None), trip=method.roundtrip(AUDIT))
    assert "over all 1,200 tokens of its vocabulary, Tiny's optimal token is `␣love` (RM score -0.50)" in text
    assert "pessimal one `zz` (-9.00)" in text
    assert "Between 1.0% and 20.0% of the token ids checked do not come back" in text
    assert render("method", "brief", ext=_extremes(None), trip=method.roundtrip(AUDIT.iloc[:1])).count("1.0% of") == 1


def test_the_longer_answers_brief_says_each_mode_it_ran_or_that_nothing_ran():
    published, comparison = longer_answers.published(PUBLISHED), longer_answers.comparison(COMPARISON, [], 10)
    both = render("longer_answers", "brief", published=published, comparison=comparison)
    assert "released scores of 2 paper RMs" in both and "from -0.25 to 0.30 over 4 model × prompt pairs" in both
    assert "1 reward longer answers more and 1 less" in both
    assert "Searching optima of n = 2 and 4 tokens, 1 of 9 GCG restarts found a higher reward than the best" in both
    assert "Searching pessima" in both and "5 of 6 GCG restarts found a lower reward than the worst" in both
    empty = longer_answers.comparison(COMPARISON.iloc[:0], [], 10)
    assert "released" not in render("longer_answers", "brief", published=None, comparison=comparison)
    assert "computed nothing" in render("longer_answers", "brief", published=None, comparison=empty)


def test_the_blinding_brief_counts_the_models_each_point_replicates_for():
    rows = pd.DataFrame([{"model": m, "instruction": i, "replica": r,
                          "replica_vs_instruction": "no reliable difference",
                          "responsive": True, "copies_replica": False, "instruction_point_replicates": i != "helps",
                          "replica_point_replicates": r == "helps"}
                         for m, i, r in [("a", "does not help", "helps"), ("b", "helps", "does not help"),
                                         ("c", "backfires", "helps")]])
    text = render("blinding", "brief", s=blinding.points(rows))
    assert "**replicates** for 2 of 3 models with a verdict" in text and "for 2. The caveats" in text
    none = rows.assign(instruction=None, replica=None)
    assert "No model had enough templates" in render("blinding", "brief", s=blinding.points(none))


def test_the_claims_page_brief_is_the_tally():
    table = pd.DataFrame({"verdict": ["replicates", "partly", "partly", "does not"]})
    text = render("claims", "page_brief", s=claims_results.glance(table))
    assert text.startswith("Of 4 claims: **1 replicates**, **2 partly**") and "**1 does not**" in text
    assert "one stated rule, the same in both directions" in text
