"""The compute-mode paragraph that keeps the paper RMs on a chapter's page (templates/beside.md.j2), rendered from
planted placements as the framing, mere_exposure and elo_misalignment chapters render it."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.results.beside import beside_section
from rmbook.report.prose import render

ROWS = pd.DataFrame([
    {"label": "mine", "measure": "h+ (positive prompts)", "estimate": 0.25, "side": "among them", "rank": 4,
     "n_reference": 10, "nearest": "R-Gem-2B, N-Lla-8B", "low": 0.05, "high": 0.45, "n_words": 812},
    {"label": "mine", "measure": "h− (negative prompts)", "estimate": 0.9, "side": "above every paper RM", "rank": 11,
     "n_reference": 10, "nearest": "S-Gem-27B, R-Lla-3B", "low": -0.57, "high": -0.06, "n_words": 812}])
OWN = pd.DataFrame({"label": ["mine", "mine"], "measure": ROWS["measure"], "estimate": ROWS["estimate"],
                    "n_words": [812, 812]})


def _say(found, what="the two halves of the framing claim, AFINN valence") -> str:
    return render("beside", "placed", s=beside_section(found, what))


def test_each_placement_is_said_with_its_rank_range_and_words():
    text = _say({"own": OWN, "placements": ROWS, "prompts": ["greatest", "worst"], "missing": ["odd"]})
    assert "The same measure (the two halves of the framing claim, AFINN valence)" in text
    assert "under this run's prompts that they were scored under word for word (greatest, worst)" in text
    assert "not under odd, which is left out" in text
    assert ("- **mine**, h+ (positive prompts): 0.250, among them (rank 4 of 11 from the lowest; the paper RMs span "
            "0.050 to 0.450; nearest: R-Gem-2B, N-Lla-8B), on 812 words.") in text
    assert "h− (negative prompts): 0.900, above every paper RM (the paper RMs span -0.570 to -0.060), on" in text
    assert "give a placement, not a test" in text


def test_a_run_the_paper_rms_were_not_scored_under_says_so():
    empty = pd.DataFrame(columns=["label", "measure", "estimate", "n_words"])
    text = _say({"own": empty, "placements": ROWS.iloc[:0], "prompts": [], "missing": ["a", "b"]})
    assert "hold no prompts of both valences among this run's (a, b)" in text and "best_ever_one" in text
    assert "rank" not in text


def test_published_mode_has_no_section():
    assert beside_section(None, "anything") is None


def test_a_model_not_placed_is_named_with_the_reason():
    found = {"own": OWN, "placements": ROWS.iloc[:1], "prompts": ["greatest", "worst"], "missing": [],
             "unplaced": {"alien": "it scored none of the words the paper RMs' released scores hold"}}
    text = _say(found)
    assert "- **alien** is not placed: it scored none of the words the paper RMs' released scores hold." in text
    assert "- **mine**, h+ (positive prompts)" in text
