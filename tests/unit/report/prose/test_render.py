"""render.py's paragraph joiner: template lines join into one paragraph, a list stays a tight list, and an item
indented under another stays nested (the value chapters' smallest-p panels under the permutation bullet)."""
from rmlib.report.prose.render import _paragraphs


def test_lines_join_and_items_start_lines():
    text = "A sentence\n   over two lines.\n- one\n  continued\n- two\n\nNext   paragraph."
    assert _paragraphs(text) == "A sentence over two lines.\n- one continued\n- two\n\nNext paragraph."


def test_an_indented_item_stays_nested():
    text = "- permutation test\n  - panel a: p = 0.01\n  - panel b:\n    p = 0.02\n- next"
    assert _paragraphs(text).splitlines() == ["- permutation test", "  - panel a: p = 0.01", "  - panel b: p = 0.02",
                                              "- next"]
