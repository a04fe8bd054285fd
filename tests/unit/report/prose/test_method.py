"""rmlib.report.prose.method: the method chapter's sentences say what the tables hold."""
from __future__ import annotations

import pandas as pd

from rmlib.report.prose import method


def test_extremes_markdown_adds_probability_mass_only_for_log_probs():
    best, worst = pd.Series({"text": " love", "reward": -0.5}), pd.Series({"text": "zz", "reward": -9.0})
    lm = method.extremes_markdown(1200, "Tiny", {"best": best, "worst": worst, "p_best": 0.6, "top_mass": 0.9}, 10)
    assert lm.startswith("Over 1,200 tokens, the optimal token for **Tiny** is `␣love` (reward -0.50)")
    assert "gets 60.0% of the next-token mass and the top 10 together 90.0%" in lm
    rm = method.extremes_markdown(5, "R", {"best": best, "worst": worst, "p_best": None, "top_mass": None}, 10)
    assert "probability" not in rm


def test_roundtrip_markdown_names_the_worst_model_and_a_range():
    audit = pd.DataFrame({"model": ["A", "B"], "ids checked": [1000, 2000], "ids changed by decode→encode": [10, 400],
                          "share changed": [0.01, 0.2], "leading BOS, paper mode": [2, 2], "leading BOS, id-exact": [1, 1]})
    text = method.roundtrip_markdown(audit)
    assert text.startswith("Between 1.0% and 20.0%") and "(B: 400 of 2,000)" in text and "with 2, 2 BOS" in text
    assert method.roundtrip_markdown(audit.iloc[:1]).startswith("1.0% of the ids")


def test_modes_markdown_reports_the_demo_numbers():
    both = pd.DataFrame({"round_trip_ok": [True, False, True], "n_bos": [2, 2, 2]})
    text = method.modes_markdown("tiny", both, {"share_diff": 0.5, "tol": 0.0123, "r_modes": 0.871})
    assert "on these 3 ids, 50% get a different score" in text and "> 0.0123" in text
    assert "1 of them because the id itself changes" in text and "r = 0.87" in text and "fed 2 leading BOS" in text
