"""render.py's paragraph joiner: template lines join into one paragraph, a list stays a tight list, and an item
indented under another stays nested (the value chapters' smallest-p panels under the permutation bullet)."""
from rmbook.report.prose.render import _paragraphs, p_value, term


def test_lines_join_and_items_start_lines():
    text = "A sentence\n   over two lines.\n- one\n  continued\n- two\n\nNext   paragraph."
    assert _paragraphs(text) == "A sentence over two lines.\n- one continued\n- two\n\nNext paragraph."


def test_an_indented_item_stays_nested():
    text = "- permutation test\n  - panel a: p = 0.01\n  - panel b:\n    p = 0.02\n- next"
    assert _paragraphs(text).splitlines() == ["- permutation test", "  - panel a: p = 0.01", "  - panel b: p = 0.02",
                                              "- next"]


def test_a_table_keeps_one_row_per_line_and_a_pipe_inside_a_sentence_joins():
    text = "Intro line\n| a | b |\n|---|---|\n| 1 | 2 |\nafter the table\n\nadjectives best\n| worst; phrasing one"
    assert _paragraphs(text).splitlines() == ["Intro line", "| a | b |", "|---|---|", "| 1 | 2 |", "after the table", "",
                                              "adjectives best | worst; phrasing one"]


def test_a_count_takes_its_noun_in_the_right_number():
    from rmbook.report.prose.render import plural
    assert [plural(n, "model") for n in (0, 1, 2, 1234)] == ["0 models", "1 model", "2 models", "1,234 models"]
    assert plural(3, "axis", "axes") == "3 axes" and plural(float("nan"), "model") == "— models"


def test_no_template_writes_a_noun_with_s_in_parentheses():
    """'10 model(s)' on a page (#43 item 5): the templates write counts with the plural filter. Jinja tags are left
    out of the search, where ``heading(s)`` is a macro called with ``s``."""
    import re
    from importlib import resources

    templates = resources.files("rmbook.report.prose") / "templates"
    found = []
    for t in templates.iterdir():
        if t.name.endswith(".j2"):
            text = re.sub(r"\{%.*?%\}|\{\{.*?\}\}", "", t.read_text(encoding="utf-8"), flags=re.S)
            found += [f"{t.name}: {m.group(0)}" for m in re.finditer(r"[A-Za-z]+\(s\)", text)]
    assert found == []


def test_a_model_term_is_named_by_its_levels_and_p_as_the_tables_print_it():
    assert term("family[T.Llama]:category[T.Communion]:valence[T.positive]") == "Llama × Communion × positive"
    assert term("family[T.Llama]:x") == "Llama × x" and term("Intercept") == "Intercept"
    assert (p_value(1.68e-06), p_value(0.0123), p_value(0.5)) == ("p < 0.001", "p = 0.012", "p = 0.5")
