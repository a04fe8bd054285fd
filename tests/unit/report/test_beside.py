"""rmbook.report.beside.show_beside: the four compute-mode chapters show their models beside the paper RMs the same
way: the sentences, then the chart when a model was placed; nothing in published mode."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.results.beside import beside_section
from rmbook.report import beside as page

ROWS = pd.DataFrame([{"label": "mine", "measure": "h+", "estimate": 0.25, "side": "among them", "rank": 4,
                      "n_reference": 10, "nearest": "R-Gem-2B", "low": 0.05, "high": 0.45, "n_words": 812}])
OWN = pd.DataFrame([{"label": "mine", "measure": "h+", "estimate": 0.25, "n_words": 812}])
REF = pd.DataFrame([{"label": "R-Gem-2B", "measure": "h+", "estimate": 0.2, "for_label": "mine"}])


def _shown(monkeypatch, section, placed) -> list:
    shown = []
    monkeypatch.setattr(page, "display", shown.append)
    page.show_beside(section, placed, "Computed models beside the paper RMs", "the measure")
    return shown


def test_a_placed_model_gets_its_sentences_then_its_chart(monkeypatch):
    placed = {"own": OWN, "reference": REF, "placements": ROWS, "prompts": ["greatest"], "missing": []}
    shown = _shown(monkeypatch, beside_section(placed, "the two halves"), placed)
    assert [type(x).__name__ for x in shown] == ["Markdown", "Chart"]
    assert "the two halves" in shown[0].data and shown[1].to_dict()["title"] == "Computed models beside the paper RMs"


def test_no_placement_says_why_without_a_chart_and_published_mode_shows_nothing(monkeypatch):
    none = {"own": OWN.iloc[:0], "reference": REF.iloc[:0], "placements": ROWS.iloc[:0], "prompts": [],
            "missing": ["greatest"]}
    shown = _shown(monkeypatch, beside_section(none, "the two halves"), none)
    assert [type(x).__name__ for x in shown] == ["Markdown"] and "greatest" in shown[0].data
    assert _shown(monkeypatch, None, None) == []
