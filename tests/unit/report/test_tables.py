"""rmbook.report.tables: top and bottom rows side by side, invisible characters made visible."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.report import tables
from rmbook.report import top_bottom_table


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"token": [f"t{i}" for i in range(200)], "score": rng.normal(size=200),
                         "model": np.repeat(["a", "b"], 100)})


def test_top_bottom_is_sorted_both_ways(scores):
    t = top_bottom_table(scores, "token", "score", k=4)
    assert list(t.columns) == ["rank", "top token", "top score", "bottom token", "bottom score"]
    assert list(t["top score"]) == sorted(scores["score"].nlargest(4), reverse=True)
    assert list(t["bottom score"]) == sorted(scores["score"].nsmallest(4))
    with pytest.raises(ValueError, match="nope"):
        top_bottom_table(scores, "nope", "score")


def test_show_whitespace():
    assert tables.show_whitespace(" a\n\t") == "␣a⏎⇥"
    assert tables.show_whitespace("") == "∅"
    assert tables.show_whitespace("\x0b") == "\\x0b"


def test_one_space_between_words_stays_a_space_and_every_other_space_is_shown():
    """EloEverything items read 'Unconditional␣love' (#43 item 5): only a space a reader could miss is marked."""
    show = tables.show_whitespace
    assert show("Unconditional love") == "Unconditional love"
    assert show(" the United") == "␣the United" and show("in ") == "in␣"
    assert show("a  b") == "a␣␣b" and show(" ") == "␣" and show("   ") == "␣␣␣" and show("a \nb") == "a ⏎b"


def test_top_bottom_tokens():
    df = pd.DataFrame({"text": [" a", "b", "c", "d", "e"], "reward": [5.0, 1.0, 3.0, -2.0, 0.0]})
    t = tables.top_bottom_table(df, "text", "reward", k=2, name="token", whitespace=True)
    assert t["top token"].tolist() == ["␣a", "c"]
    assert t["bottom token"].tolist() == ["d", "e"]
    assert t["bottom reward"].tolist() == [-2.0, 0.0]
    with pytest.raises(ValueError, match="lower k"):
        tables.top_bottom_table(df, "text", "reward", k=3, name="token", whitespace=True)


def test_a_short_wide_table_scrolls_sideways_instead_of_being_cut_off():
    # #28 item 6: tables of 14-17 columns were cut off at the right of the page
    from rmbook.report.tables import table_html

    wide = pd.DataFrame([{f"column {i}": i for i in range(17)}])
    html = table_html(wide)
    assert html.startswith('<div class="rmlib-scroll" style="max-width: 100%; overflow-x: auto;">')
    long = table_html(pd.DataFrame({"a": range(40)}), max_rows=15)
    assert "40 rows (scroll)" in long and "overflow: auto" in long


def test_the_row_numbers_left_by_a_filter_are_not_shown_as_a_column():
    # #28 item 5: the identity_terms page showed the pandas index (12, 40, ...) of a filtered table as a column
    from rmbook.report.tables import table_html

    df = pd.DataFrame({"term": ["a", "b", "c"], "n": [1, 2, 3]})
    filtered = df[df["n"] > 1]
    assert "<th>1</th>" not in table_html(filtered) and "<td>b</td>" in table_html(filtered)
    named = df.set_index("term")
    assert "<th>a</th>" in table_html(named)  # a named index is data


def test_a_page_shows_a_table_in_words_and_readable_numbers_and_leaves_the_data_alone():
    """#43 item 5: snake_case headers, NaN and <NA>, six decimals and a p of 0.000e+00 on the pages."""
    from rmbook.report.tables import reader_view, table_html
    df = pd.DataFrame({"share_truncated": [0.123456789, np.nan], "p_fdr_within": [0.0, 0.0123456],
                       "p": [3.1e-17, 0.4567],
                       "size_b": pd.array([8, None], dtype="Int64"), "n": [3, 4], "item": ["a", None],
                       "elo": [1234.5678, 2e-5]})
    before = df.copy()
    view = reader_view(df)
    assert list(view.columns) == ["share truncated", "p fdr within", "p", "size b", "n", "item", "elo"]
    assert list(view["share truncated"]) == ["0.123", "—"]  # three significant digits
    assert list(view["p fdr within"]) == ["< 0.001", "0.012"] and list(view["p"]) == ["< 0.001", "0.46"]
    assert list(view["size b"]) == [8, "—"] and list(view["item"]) == ["a", "—"]
    assert list(view["n"]) == [3, 4] and list(view["elo"]) == ["1,235", "2e-05"]
    html = table_html(df)
    assert "NaN" not in html and "&lt;NA&gt;" not in html and "None" not in html and "0.123457" not in html
    assert "<th>share truncated</th>" in html
    pd.testing.assert_frame_equal(df, before)   # the data is untouched


def test_a_named_index_and_column_levels_read_as_words_too():
    from rmbook.report.tables import reader_view
    df = pd.DataFrame({("by_model", "rho_mean"): [0.5]}, index=pd.Index(["m"], name="model_id"))
    view = reader_view(df)
    assert list(view.columns) == [("by model", "rho mean")] and view.index.names == ["model id"]


def test_a_styled_table_shows_its_headers_in_words_and_keeps_its_formats():
    from rmbook.report.tables import styler_view

    df = pd.DataFrame({"share_truncated": [0.123456], "model": ["a"]})
    html = styler_view(df.style.format(precision=2).hide(axis="index")).to_html()
    assert ">share truncated<" in html and "share_truncated" not in html and ">0.12<" in html


def test_stored_identifiers_read_as_words_in_cells_and_row_labels_and_the_data_keeps_them():
    """#43 item 5: ``in_distribution``, ``race_ethnicity``, ``pos_prompts`` were shown as stored; a prompt key, which
    a reader types as a parameter, stays as it is."""
    from rmbook.report.tables import reader_view
    df = pd.DataFrame({"eval_set": ["in_distribution", "token_shift_drop"], "prompt_key": ["best_ever_one"] * 2,
                       "gap": [0.1, 0.2]}, index=pd.Index(["race_ethnicity", "pos_prompts"], name="what"))
    before = df.copy()
    view = reader_view(df)
    assert list(view["eval set"]) == ["in distribution", "drop under the token shift"]
    assert list(view["prompt key"]) == ["best_ever_one"] * 2
    assert list(view.index) == ["race or ethnicity", "h+ (positive prompts)"] and view.index.name == "what"
    pd.testing.assert_frame_equal(df, before)
