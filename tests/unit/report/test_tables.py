"""rmlib.report.tables: top and bottom rows side by side, invisible characters made visible."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.report import tables
from rmlib.report import top_bottom_table


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
    from rmlib.report.tables import table_html

    wide = pd.DataFrame([{f"column {i}": i for i in range(17)}])
    html = table_html(wide)
    assert html.startswith('<div class="rmlib-scroll" style="max-width: 100%; overflow-x: auto;">')
    long = table_html(pd.DataFrame({"a": range(40)}), max_rows=15)
    assert "40 rows (scroll)" in long and "overflow: auto" in long


def test_the_row_numbers_left_by_a_filter_are_not_shown_as_a_column():
    # #28 item 5: the identity_terms page showed the pandas index (12, 40, ...) of a filtered table as a column
    from rmlib.report.tables import table_html

    df = pd.DataFrame({"term": ["a", "b", "c"], "n": [1, 2, 3]})
    filtered = df[df["n"] > 1]
    assert "<th>1</th>" not in table_html(filtered) and "<td>b</td>" in table_html(filtered)
    named = df.set_index("term")
    assert "<th>a</th>" in table_html(named)  # a named index is data
