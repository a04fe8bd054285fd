"""rmbook.analysis.categories: one category per token, token features, forms of EloEverything items."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.analysis import categories


WORDS = {"love", "peace", "war", "water", "the", "cat"}


@pytest.mark.parametrize("text, special, expected", [
    (" love", False, "word"), ("Love", False, "word"), ("ing", False, "subword"), ("xq", False, "subword"),
    ("42", False, "number"), (" ,", False, "punctuation"), ("!?", False, "punctuation"), ("$", False, "punctuation"),
    ("  ", False, "whitespace"), ("\n", False, "whitespace"), ("", False, "whitespace"), ("<s>", True, "special"),
    ("café", False, "non-ASCII"), ("中文", False, "non-ASCII"), ("\ufffd", False, "other"), ("x2", False, "other"),
    ("don't", False, "other"),
])
def test_token_category(text, special, expected):
    assert categories.token_category(text, special, WORDS) == expected


def test_token_category_rejects_non_text():
    with pytest.raises(TypeError, match="token text must be a str"):
        categories.token_category(3, False, WORDS)


def test_token_features_flags():
    df = pd.DataFrame({"text": [" Love", "ing", "WAR", "\n"], "is_special": [False] * 4})
    f = categories.token_features(df, dictionary=WORDS)
    assert f["category"].tolist() == ["word", "subword", "word", "whitespace"]
    assert f["leading_space"].tolist() == [True, False, False, True]
    assert f["capitalised"].tolist() == [True, False, True, False]
    assert f["all_caps"].tolist() == [False, False, True, False]
    assert f["n_chars"].tolist() == [4, 3, 3, 0]
    with pytest.raises(ValueError, match="lacks columns"):
        categories.token_features(df.rename(columns={"text": "t"}))


def test_english_dictionary_excludes_fragments(data_ready):
    d = categories.english_dictionary()
    assert {"love", "water", "happiness"} <= d
    assert not {"ing", "tion", "ment"} & d


@pytest.mark.parametrize("item, form", [
    ("Water", "dictionary word"), ("Novosibirsk", "other single word"), ("Will Smith", "multi-word name"),
    ("Atmosphere of Earth", "multi-word name"), ("Food allergy", "multi-word phrase"),
    ("Oz (TV series)", "disambiguated title"), ("1960s", "other"),
])
def test_item_form(item, form):
    assert categories.item_form(item, {"water", "food", "allergy"}) == form


def test_item_categories_valence_bands():
    cats = categories.item_categories(["Love", "War", "Table", "Will Smith", "Love"],
                              valence={"love": 8.0, "war": 1.5, "table": 5.0}, dictionary={"love", "war", "table"})
    assert len(cats) == 4  # deduplicated
    assert cats.set_index("item")["valence_band"].to_dict() == {
        "Love": "positive", "War": "negative", "Table": "neutral", "Will Smith": "unrated"}
    with pytest.raises(ValueError, match="non-empty string"):
        categories.item_form("  ")
