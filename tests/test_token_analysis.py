"""rmlib.token_analysis: token categories, tail composition, shared vocabulary, EloEverything item forms."""
import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import categories, distributions
from rmlib.report import charts, tables

WORDS = {"love", "peace", "war", "water", "the", "cat"}


@pytest.fixture(scope="module")
def data_ready():
    from rmlib.data import DataError, path

    try:
        for f in ("paper_facct2025/corpora/1_1_all_alpha.txt", "lexicons/warriner2013_vad/Ratings_Warriner_et_al.csv"):
            path(f)
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")


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


def test_show_whitespace():
    assert tables.show_whitespace(" a\n\t") == "␣a⏎⇥"
    assert tables.show_whitespace("") == "∅"
    assert tables.show_whitespace("\x0b") == "\\x0b"


def test_tail_composition_planted():
    # Top scores are all words, bottom scores all punctuation, the middle is mixed.
    n = 300
    cat = np.array(["word"] * 100 + ["number"] * 100 + ["punctuation"] * 100)
    score = np.r_[np.linspace(10, 5, 100), np.linspace(4.9, -4.9, 100), np.linspace(-5, -10, 100)]
    df = pd.DataFrame({"reward": score, "category": pd.Categorical(cat, categories=list(categories.CATEGORIES))})
    comp = distributions.tail_composition(df, k=50).set_index(["tail", "value"])
    assert comp.loc[("top", "word"), "share"] == 1.0
    assert comp.loc[("bottom", "punctuation"), "share"] == 1.0
    assert comp.loc[("all", "word"), "share"] == pytest.approx(1 / 3)
    assert comp.loc[("top", "word"), "lift"] == pytest.approx(3.0)
    lo, hi = comp.loc[("top", "word"), ["ci_low", "ci_high"]]
    assert 0.9 < lo < 1.0 and hi == pytest.approx(1.0)
    assert comp.groupby("tail")["share"].sum().round(9).eq(1).all()
    with pytest.raises(ValueError, match="fewer than 2k"):
        distributions.tail_composition(df, k=200)


def test_top_bottom_tokens():
    df = pd.DataFrame({"text": [" a", "b", "c", "d", "e"], "reward": [5.0, 1.0, 3.0, -2.0, 0.0]})
    t = tables.top_bottom_table(df, "text", "reward", k=2, name="token", whitespace=True)
    assert t["top token"].tolist() == ["␣a", "c"]
    assert t["bottom token"].tolist() == ["d", "e"]
    assert t["bottom reward"].tolist() == [-2.0, 0.0]
    with pytest.raises(ValueError, match="lower k"):
        tables.top_bottom_table(df, "text", "reward", k=3, name="token", whitespace=True)


def test_shared_vocabulary_aligns_on_text():
    a = pd.DataFrame({"model": "A", "text": [" love", "war", "\ufffd", "x", "y", "<s>"],
                      "reward": [1.0, 2.0, 9.0, 3.0, 4.0, 7.0], "is_special": [False] * 5 + [True]})
    b = pd.DataFrame({"model": "B", "text": [" love", " love", "war", "\ufffd", "x", "y", "z"],
                      "reward": [10.0, 12.0, 20.0, 90.0, 30.0, 40.0, 50.0], "is_special": [False] * 7})
    frame = pd.concat([a, b])
    w = distributions.shared_vocabulary(frame)
    assert list(w.columns) == ["A", "B"]
    assert set(w.index) == {" love", "war", "x", "y"}  # byte fragment, special and unshared texts dropped
    assert w.loc[" love", "B"] == 12.0  # duplicates combined with max
    assert distributions.shared_vocabulary(frame, agg="mean").loc[" love", "B"] == 11.0
    loose = distributions.shared_vocabulary(frame.assign(text=frame["text"].replace("war", " War")), normalise=True)
    assert "war" in loose.index and "love" in loose.index
    ov = distributions.vocabulary_overlap(frame, w).set_index("model")
    assert ov.loc["A", "n_shared"] == 4 and ov.loc["B", "n_distinct_texts"] == 5
    with pytest.raises(ValueError, match="at least 2 models"):
        distributions.shared_vocabulary(a)
    with pytest.raises(ValueError, match="agg must be"):
        distributions.shared_vocabulary(frame, agg="median")


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


def test_rank_trajectory_chart_spec():
    traj = pd.DataFrame({"item": ["a", "a", "b", "b"], "ranker": ["humans", "m1"] * 2, "rank percentile": [1, 50, 90, 10]})
    spec = charts.rank_trajectory_chart(traj, ["humans", "m1"]).to_dict()
    assert spec["mark"]["type"] == "line" and spec["encoding"]["y"]["scale"]["reverse"] is True
