"""rmlib.report.prose.values: the value chapters' sentences say what the numbers say."""
from __future__ import annotations

import pandas as pd

from rmlib.report import prose


def test_word_pair_markdown_names_models_and_counts_by_family():
    pair = pd.DataFrame({"nickname": ["A", "B", "C"], "family": ["Gemma", "Gemma", "Llama"],
                         "love": [1.0, 5.0, 2.0], "freedom": [3.0, 2.0, 9.0], "first": ["love", "freedom", "love"]})
    ranks = pd.DataFrame({"n_words": [263]})
    text = prose.word_pair_markdown(pair, ranks, "love", "freedom", lexicon="Big Two nouns", models=["A", "Z"])
    assert "Ranks among the 263 Big Two nouns" in text and "**A** ranks *love* 1 and *freedom* 3." in text
    assert "Z" not in text and "Gemma: 1 of 2 rank love above freedom; Llama: 1 of 1" in text
    assert "skipped" in prose.word_pair_markdown(None, ranks, "love", "freedom", lexicon="x")


def test_comparison_markdown_says_why_there_is_none_and_qualifies_implicit_rewards():
    assert "rerun it with `MODE" in prose.comparison_markdown(None, mode="published", families=("Gemma", "Llama"))
    assert "No family comparison" in prose.comparison_markdown(None, mode="compute", families=("Gemma", "Llama"))
    c = {"n_prompts": 4, "n_words": 10, "same": 3, "panels": 4, "n_significant": 0, "unit": "prompt",
         "implicit": True}
    text = prose.comparison_markdown(c, mode="compute", families=("Gemma", "Llama"))
    assert "**same sign in 3 of 4 panels**" in text and "these particular models" in text and "log-probs" in text


def test_missing_families_markdown_lists_only_the_tables_left_out():
    tables = {"published": pd.DataFrame({"family": ["Gemma", "Llama"]}), "compute": pd.DataFrame({"family": ["Qwen"]})}
    text = prose.missing_families_markdown(tables, {"published": {}}, ("Gemma", "Llama"))
    assert text.startswith("**compute**") and "['Qwen']" in text and "published" not in text


def test_interaction_markdown_separates_direction_from_significance():
    t = {"contrast": "c", "difference": 19.8, "p": 0.076, "n_a": 4, "n_b": 6, "min_attainable_p": 0.0095,
         "claimed_sign": 1}
    text = prose.interaction_markdown(t)
    assert "+19.8 rank points" in text and "points the claimed way, but with 4 vs 6 models" in text
    assert "0.0095" in text
    assert "opposite direction" in prose.interaction_markdown({**t, "difference": -19.8, "p": 0.01})
