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
