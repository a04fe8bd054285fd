"""What a reader sees: no chapter's page carries library debris (#28 item 1 and 5). The finetuning and
implicit_vs_explicit runs train on a cold, isolated cache, which is when TRL and transformers print: their log dicts,
tqdm bars saved as widgets, warnings with the machine's paths. Every chapter's visible outputs are checked, on the
same runs the chapter tests use. No page shows a slur in full either: the masked view is the default (#28 item 2)."""
from __future__ import annotations

import json
import re

import pytest

from rmbook.book import chapters
from rmbook.paths import ROOT

# what must never reach a page: (what it is, a pattern)
DEBRIS = [
    ("a trainer log dict", re.compile(r"\{'(loss|train_runtime|grad_norm|eval_loss)'")),
    ("a progress bar", re.compile(r"\d+%\|[^|]*\|\s*\d+/\d+")),
    ("a saved tqdm widget", re.compile(r"(Float|Int)Progress\(")),  # the book's own Accordions are content
    ("a Python warning", re.compile(r"\b\w*Warning: ")),
    ("a Path's repr", re.compile(r"PosixPath\(|WindowsPath\(")),
    ("the building machine's path", re.compile(re.escape(str(ROOT)))),
]


def _visible_outputs(path) -> list[str]:
    """The text of every output a reader sees: cells tagged remove-cell or remove-output are not on the page."""
    nb = json.loads(path.read_text())
    texts = []
    for cell in nb["cells"]:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] != "code" or tags & {"remove-cell", "remove-output"}:
            continue
        for o in cell.get("outputs", []):
            texts.append(json.dumps(o))
    return texts


def _unmasked_slur() -> re.Pattern:
    """A slur of the masked view's list (:mod:`rmlib.data.slurs`), written out in full: pages mask them by default."""
    from rmlib.data.slurs import slur_lexicon

    lexicon = slur_lexicon()
    words = sorted({*lexicon.words, *lexicon.forms, *lexicon.phrases}, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words) + r")\b", re.I)


def debris(path) -> list[str]:
    found = []
    for text in _visible_outputs(path):
        for what, pattern in [*DEBRIS, ("an unmasked slur", _unmasked_slur())]:
            m = pattern.search(text)
            if m:
                found.append(f"{what}: …{text[max(0, m.start() - 60):m.end() + 60]}…")
    return found


def test_the_debris_check_finds_what_it_looks_for(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "", "outputs": [
        {"output_type": "stream", "name": "stdout", "text": "{'loss': 0.69, 'grad_norm': 1.2}\n"},
        {"output_type": "stream", "name": "stderr", "text": f"{ROOT}/.venv/x.py:3: FutureWarning: old\n"},
        {"output_type": "execute_result", "data": {"text/plain": "PosixPath('/x/results/a.json')"}},
        {"output_type": "display_data", "data": {"text/plain": "HBox(children=(HTML(value=''), FloatProgress(value=0.0"}},
        {"output_type": "display_data", "data": {"text/plain": "Accordion(children=(HTML(value='<table>"}},
        {"output_type": "display_data", "data": {"text/markdown": "The lowest item is Nigger; Tom Hanks is kept."}},
        {"output_type": "display_data", "data": {"text/markdown": "The lowest item is N****r."}}]},
        {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "source": "",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "{'loss': 1}"}]}]}
    p = tmp_path / "x.ipynb"
    p.write_text(json.dumps(nb))
    kinds = {d.split(":")[0] for d in debris(p)}
    assert kinds == {"a trainer log dict", "a Python warning", "a Path's repr", "the building machine's path",
                     "a saved tqdm widget", "an unmasked slur"}
    assert sum(d.startswith("an unmasked slur") for d in debris(p)) == 1


@pytest.mark.parametrize("name", [c for c in chapters() if c != "claims"])  # the claims page: test_claims
def test_no_page_carries_library_output(chapter, name):
    run = chapter(name)
    assert not run.errors, run.errors
    assert debris(run.path) == []


@pytest.mark.parametrize("name", [c for c in chapters() if c != "claims"])  # the claims page: test_claims
def test_every_page_opens_with_what_it_found(chapter, name):
    """#43 item 1: under the title (and the content warning, where there is one) comes the computed "In brief"."""
    nb = json.loads(chapter(name).path.read_text())
    title, box = ("".join(c["source"]) for c in nb["cells"][:2])
    assert title.startswith("# ") and (len(title.splitlines()) == 1 or "```{admonition} Content warning" in title)
    assert box.startswith("```{admonition} In brief\n") and len(box.splitlines()) >= 4, box


SNAKE = re.compile(r"<th[^>]*>\s*([a-z0-9]+(?:_[a-z0-9]+)+)\s*</th>")
MISSING = re.compile(r"<td[^>]*>\s*(NaN|nan|&lt;NA&gt;|<NA>|None)\s*</td>")


def _raw_identifier() -> re.Pattern:
    """A cell or row label that is a value the results store as an identifier, shown as stored (``in_distribution``)
    rather than in the words of :data:`rmbook.report.tables.VALUE_WORDS`."""
    from rmbook.report.tables import VALUE_WORDS

    return re.compile(r"<t[dh][^>]*>\s*(" + "|".join(map(re.escape, VALUE_WORDS)) + r")\s*</t[dh]>")


def unreadable_tables(path) -> list[str]:
    """Tables a reader would have to decode: a snake_case column header, NaN / <NA> / None for a missing value, or a
    stored identifier that has words (:data:`rmbook.report.tables.VALUE_WORDS`) shown raw."""
    found = []
    for text in _visible_outputs(path):
        html = "".join(json.loads(text).get("data", {}).get("text/html", ""))
        if "vegaEmbed" in html:
            continue
        heads = "".join(re.findall(r"<thead>.*?</thead>", html, flags=re.S))  # column headers, not row labels
        found += [f"a snake_case header: {m}" for m in SNAKE.findall(heads)]
        found += [f"a missing value shown as {m}" for m in MISSING.findall(html)]
        body = "".join(re.findall(r"<tbody>.*?</tbody>", html, flags=re.S))
        found += [f"a stored identifier shown raw: {m}" for m in _raw_identifier().findall(body)]
    return sorted(set(found))


def test_the_table_check_finds_what_it_looks_for(tmp_path):
    table = ('<table><thead><tr><th class="col_heading">share_truncated</th><th>model</th></tr></thead>'
             "<tbody><tr><th>neg_half</th><td>NaN</td><td>&lt;NA&gt;</td><td>—</td><td>in_distribution</td></tr>"
             "</tbody></table>")
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "", "outputs": [
        {"output_type": "display_data", "data": {"text/html": table}}]}]}
    p = tmp_path / "x.ipynb"
    p.write_text(json.dumps(nb))
    assert unreadable_tables(p) == ["a missing value shown as &lt;NA&gt;", "a missing value shown as NaN",
                                    "a snake_case header: share_truncated",
                                    "a stored identifier shown raw: in_distribution"]


@pytest.mark.parametrize("name", chapters())
def test_every_table_on_a_page_reads_as_words(chapter, name):
    """#43 item 5: headers in words and missing values said, on every page, DataFrames and styled tables alike."""
    assert unreadable_tables(chapter(name).path) == []
