"""The method chapter's sentences (templates/method.md.j2), rendered from its results sections as the chapter does:
the same facts the old prose functions stated, now read from the typed sections alone."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.method import results
from rmbook.report.prose import render

AUDIT = pd.DataFrame({"model": ["A", "B"], "ids checked": [1000, 2000], "ids changed by decode→encode": [10, 400],
                      "share changed": [0.01, 0.2], "leading BOS, paper mode": [2, 2], "leading BOS, id-exact": [1, 1],
                      "examples (id, decoded, re-encoded)": ["", ""]})


def _extremes(p_best):
    one = pd.DataFrame({"text": [" love", "zz", "a"], "reward": [-0.5, -9.0, -2.0], "model": "m", "model_label": "Tiny",
                        "prompt": "Best?", "reward_kind": "RM score"})
    ext = {"best": one.iloc[0], "worst": one.iloc[1], "p_best": p_best, "top_mass": None if p_best is None else 0.9}
    return results.extremes(pd.concat([one] * 400, ignore_index=True), ext, 10)


def test_the_extremes_add_probability_mass_only_for_log_probs():
    lm = render("method", "extremes", s=_extremes(0.6))
    assert lm.startswith("Over 1,200 tokens, the optimal token for **Tiny** is `␣love` (reward -0.50)")
    assert "gets 60.0% of the next-token mass and the top 10 together 90.0%" in lm
    assert "probability" not in render("method", "extremes", s=_extremes(None))
    assert render("method", "heading", s=_extremes(None)) == "### Tiny · *Best?* (RM score)"
    assert render("method", "first_rows", s=_extremes(None)) == "The first rows of one sweep (Tiny, *Best?*):"


def test_the_round_trip_names_the_worst_model_and_a_range():
    text = render("method", "roundtrip", s=results.roundtrip(AUDIT))
    assert text.startswith("Between 1.0% and 20.0%") and "(B: 400 of 2,000)" in text and "this many BOS tokens: 2, 2" in text
    assert render("method", "roundtrip", s=results.roundtrip(AUDIT.iloc[:1])).startswith("1.0% of the ids")


def test_the_modes_demo_reports_its_numbers():
    both = pd.DataFrame({"round_trip_ok": [True, False, True], "n_bos": [2, 2, 2]})
    demo = results.modes_demo("tiny", SimpleNamespace(untrained_head=True), both,
                              {"share_diff": 0.5, "tol": 0.0123, "r_modes": 0.871})
    text = render("method", "modes", s=demo)
    assert "on these 3 ids, 50% get a different score" in text and "> 0.0123" in text
    assert "1 of them because the id itself changes" in text and "r = 0.87" in text and "fed 2 leading BOS" in text


def test_a_field_the_section_lacks_is_an_error_not_a_blank():
    with pytest.raises(Exception, match="has no attribute 'share_min'|share_min"):
        render("method", "roundtrip", s=SimpleNamespace(share_max=0.1))
    with pytest.raises(KeyError, match="no macro 'nope'"):
        render("method", "nope", s=None)
    with pytest.raises(KeyError, match="no sentences for chapter 'nowhere'"):
        render("nowhere", "x")


def test_a_list_in_a_template_stays_a_tight_list():
    from rmbook.report.prose.render import _paragraphs

    text = "Intro sentence\n  goes on.\n- item one\n  continues\n- item two\n\n\nNext  paragraph\nhere."
    assert _paragraphs(text) == "Intro sentence goes on.\n- item one continues\n- item two\n\nNext paragraph here."
