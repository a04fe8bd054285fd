"""Computed prose of the longer_answers chapter (rmlib.report.longer_answers)."""
from __future__ import annotations

from rmlib.report import longer_answers as prose


def test_lengths_markdown_says_why_one_token_is_not_searched():
    text = prose.lengths_markdown([8, 2, 4])
    assert text.startswith("Lengths searched: n = 2, 4, 8.") and "n = 1 is not searched" in text
    assert "exhaustive sweep" in text


def test_lengths_markdown_calls_a_one_token_search_a_check():
    text = prose.lengths_markdown([1, 2])
    assert "n = 1, 2." in text and "not searched" not in text and "check" in text


def test_published_markdown_counts_the_significant_pairs_by_sign():
    import pandas as pd

    table = pd.DataFrame({"model": ["a", "a", "b", "b"], "prompt_key": ["p", "q", "p", "q"],
                          "share_multi_word": [0.4] * 4, "rho": [0.30, -0.20, 0.01, -0.25],
                          "p": [0.001, 0.01, 0.9, 0.2]})
    text = prose.published_markdown(table)
    assert "Across 2 paper RMs and 2 prompts (4 model x prompt pairs" in text
    assert "in 1 of these pairs the RM rewards longer answers more and in 1 less, at p < 0.05" in text
