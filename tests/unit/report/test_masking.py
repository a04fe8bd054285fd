"""The masked view: slurs from the data are masked by default in what a chapter shows, and shown on request."""
import pandas as pd
import pytest

from rmbook.report import masking
from rmbook.report.masking import mask_frame, mask_spec, mask_text, mask_word


@pytest.fixture(autouse=True)
def _masked_by_default():
    masking.show_slurs(False)
    yield
    masking.show_slurs(False)


def test_mask_word_keeps_the_first_and_last_letter():
    assert mask_word("nigger") == "n****r"
    assert mask_word("Faggot") == "F****t"
    assert mask_word("half-breed") == "h***-****d"
    assert mask_word("ab") == "**"


def test_mask_text_masks_words_in_any_case_and_inflection_and_nothing_else():
    assert mask_text("␣nigger") == "␣n****r"
    assert mask_text("Niggers in the White House") == "N*****s in the White House"
    assert mask_text("Uncle Tom's Cabin") == "U**** **m's Cabin"
    assert mask_text("Niggerati; Gayniggers") == "N****rati; Gayn****rs"  # a long slur inside a word
    for kept in ["Tom Hanks", "Queer theory", "Taco", "niggardly", "Japan", "a good boy"]:
        assert mask_text(kept) == kept


def test_mask_frame_masks_text_cells_index_and_columns_only():
    df = pd.DataFrame({"item": ["Nigger", "Love"], "reward": [-3.0, 2.0]}, index=pd.Index(["faggot", "x"], name="k"))
    out = mask_frame(df)
    assert out["item"].tolist() == ["N****r", "Love"]
    assert out.index.tolist() == ["f****t", "x"] and out.index.name == "k"
    assert out["reward"].tolist() == [-3.0, 2.0]
    assert df["item"].tolist() == ["Nigger", "Love"]  # the data are untouched


def test_mask_spec_masks_embedded_data_not_field_names():
    spec = {"datasets": {"d1": [{"item": "Nigger", "reward": 1}]},
            "layer": [{"data": {"values": [{"item": "kikes"}]}, "encoding": {"x": {"field": "item"}}}]}
    out = mask_spec(spec)
    assert out["datasets"]["d1"] == [{"item": "N****r", "reward": 1}]
    assert out["layer"][0]["data"]["values"] == [{"item": "k***s"}]
    assert out["layer"][0]["encoding"] == {"x": {"field": "item"}}


def test_show_slurs_must_be_a_bool():
    with pytest.raises(TypeError, match="SHOW_SLURS"):
        masking.show_slurs("no")


@pytest.fixture()
def shell(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    monkeypatch.setattr("IPython.get_ipython", lambda: sh)
    mimes = ("text/html", "text/markdown", "text/plain")
    saved = {m: dict(sh.display_formatter.formatters[m].type_printers) for m in mimes}
    yield sh
    for m in mimes:  # leave the shared shell as it was found
        printers = sh.display_formatter.formatters[m].type_printers
        printers.clear()
        printers.update(saved[m])


def test_a_known_slur_from_the_data_is_masked_by_default_on_a_page(shell):
    """EloEverything (the FAccT paper's data) has an item spelled as the n-word; a chapter page set up with
    setup_page() shows it masked in a table, a chart, a Styler and a sentence, and in full with show_slurs=True."""
    import altair as alt
    from IPython.display import Markdown

    from rmlib.data import elo_items
    from rmbook.report import setup_page

    items = elo_items("greatest")
    worst = items.loc[items["item"].eq("Nigger"), ["item", "elo_rank"]]
    assert len(worst) == 1, "the test relies on the published EloEverything data"
    setup_page()
    fmt = shell.display_formatter.format
    for obj in [worst, worst.style, Markdown("The lowest item is **Nigger**.")]:
        shown = " ".join(str(v) for v in fmt(obj)[0].values())
        assert "Nigger" not in shown and "N****r" in shown, type(obj)
    bundle = alt.Chart(worst).mark_bar().encode(y="item", x="elo_rank")._repr_mimebundle_()
    html = (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]
    assert "Nigger" not in html and "N****r" in html

    setup_page(show_slurs=True)
    shown = " ".join(str(v) for v in fmt(worst)[0].values())
    assert "Nigger" in shown


def test_a_page_shows_no_absolute_path_of_the_building_machine(shell):
    from IPython.display import Markdown

    from rmbook.paths import ROOT
    from rmlib import config
    from rmbook.report import setup_page

    setup_page()
    reason = f"local:ft-x: no trained RM at {config.cache_dir() / 'rms' / 'ft-x'} (train one with rmlib.train)"
    shown = shell.display_formatter.format(Markdown(reason))[0]["text/markdown"]
    assert str(ROOT) not in shown and str(config.cache_dir()) not in shown
    assert "no trained RM at $RMLIB_CACHE_DIR/rms/ft-x" in shown
    table = shell.display_formatter.format(pd.DataFrame({"model": ["x"], "reason": [reason]}))[0]
    assert all(str(config.cache_dir()) not in v for v in table.values())
