"""rmbook.book.chapters: parameters of a run, results through one parameter, the run order."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rmbook import book


CHAPTER = "about"


def test_unknown_parameter_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("MODLES: [x]\n")
    with pytest.raises(book.BookError, match="MODLES"):
        book.parameters(CHAPTER, params_file=bad)
    with pytest.raises(book.BookError, match="no notebook template"):
        book.parameters("no_such_chapter")


def test_a_binary_parameter_file_is_named(tmp_path):
    """#39 item 8: `--params` on a binary file said "'utf-8' codec can't decode ..." without naming it."""
    bad = tmp_path / "params.yaml"
    bad.write_bytes(bytes(range(128, 256)))
    with pytest.raises(book.BookError, match=f"parameter file {bad} is not a text file"):
        book.parameters(CHAPTER, params_file=bad)


@pytest.mark.parametrize("chapter, old, new", [("implicit_rewards", "SWEEP_PROMPTS", "SWEEP_PROMPT_KEYS"),
                                                ("implicit_rewards", "PROMPT_KEYS", "PROFILE_PROMPT_KEYS"),
                                                ("longer_answers", "PROMPT_KEYS", "COMPUTE_PROMPT_KEYS"),
                                                ("method", "PROMPTS", "PROMPT_TEXTS"),
                                                ("good_teachers", "COMPUTE_PROMPT", "COMPUTE_PROMPT_TEXT"),
                                                ("finetuning", "METHOD", "TUNING"),
                                                ("implicit_vs_explicit", "METHOD", "TUNING")])
def test_a_renamed_parameter_says_its_new_name(chapter, old, new):
    """One name per prompt concept (#13): a user's old parameter file gets the new name, not a bare refusal."""
    with pytest.raises(book.BookError, match=f"'{old} \\(renamed {new}\\)'"):
        book.parameters(chapter, overrides={old: ["greatest"]})
    assert new in book.declared_parameters(chapter) and old not in book.declared_parameters(chapter)


def test_full_run_parameter_files_match_their_templates():
    names = book.chapters()
    assert CHAPTER in names
    for name in names:
        assert book.template(name).is_file()
        book.parameters(name)  # raises on keys that the parameters cell does not declare


def test_every_findings_chapter_writes_results_through_one_parameter():
    for name in book.chapters():
        text = book.template(name).read_text()
        assert "RESULTS_JSON" not in text and "RESULTS_PATH" not in text, name
        if name != "about":  # the about page glues its few numbers instead
            assert book.declares_results(name), f"{name} has no RESULTS_DIR parameter"
    params = book.with_results_dir("framing", {}, Path("/x/out"))
    assert params["RESULTS_DIR"] == str(Path("/x/out/results").resolve())
    with pytest.raises(book.BookError, match="RESULTS_DIR='/y' is not a parameter to set"):
        book.with_results_dir("framing", {"RESULTS_DIR": "/y"}, Path("/x"))  # #62: only the runner sets it
    assert book.with_results_dir("about", {}, Path("/x")) == {}
    # where results go is not an input: it does not change the stamp
    assert book.content_hash("framing", {"RESULTS_DIR": "/a"}) == book.content_hash("framing", {"RESULTS_DIR": "/b"})


def test_two_chapters_share_one_template_with_their_own_defaults_cells_and_name():
    assert book.template("big_two") == book.template("moral_foundations") == book.NOTEBOOKS / "value_profiles.ipynb"
    assert "value_profiles" not in book.chapters()         # a template, not a page
    tiny = book.parameters("moral_foundations", tiny=True)
    assert tiny["CHAPTER"] == "moral_foundations" and tiny["DICTIONARY"] == "mfd2" and tiny["WORDS_PER_CATEGORY"] == 20
    full = book.parameters("moral_foundations")
    assert full["DICTIONARY"] == "mfd2" and full["WORDS_PER_CATEGORY"] is None   # the parameter file comes after
    assert book.parameters("big_two", tiny=True) == {"CHAPTER": "big_two", "DICTIONARY": "big2"}
    assert book.parameters("big_two", tiny=True, overrides={"SEED": 3})["SEED"] == 3
    assert book.parameters("about", tiny=True) == {}                # a template of its own has no chapter defaults
    # each chapter's page keeps only its own cells
    ids = {name: {c["id"] for c in book.chapter_cells(name)["cells"]} for name in ("big_two", "moral_foundations")}
    assert "c7ce0d00" in ids["big_two"] - ids["moral_foundations"]          # LOVE or freedom
    assert "85fcddc4" in ids["moral_foundations"] - ids["big_two"]          # by foundation
    assert "2721270d" in ids["big_two"] & ids["moral_foundations"]
    # the two chapters' stamps differ: the same template, different parameters
    assert book.content_hash("big_two", book.parameters("big_two")) != book.content_hash(
        "moral_foundations", book.parameters("moral_foundations"))


def test_a_chapter_listed_by_two_templates_is_refused(tmp_path, monkeypatch):
    import importlib
    import json

    chapters = importlib.import_module("rmbook.book.chapters")  # the module (rmbook.book.chapters is also a function)

    nb = {"cells": [], "metadata": {"rmlib": {"chapters": {"x": {}}}}, "nbformat": 4, "nbformat_minor": 5}
    for name in ("a", "b"):
        (tmp_path / f"{name}.ipynb").write_text(json.dumps(nb))
    monkeypatch.setattr(chapters, "NOTEBOOKS", tmp_path)
    with pytest.raises(book.BookError, match="listed by two templates"):
        chapters.template("x")


@pytest.mark.parametrize("template", sorted(p.stem for p in (Path(__file__).resolve().parents[3] / "notebooks")
                                            .glob("*.ipynb")))
def test_every_template_sets_up_its_page(template):
    """setup_page() gives every page offline charts, the same tables (no integer index, long ones scroll) and the
    masked view; the pages with a content warning pass it their SHOW_SLURS parameter."""
    import json
    import re
    path = Path(__file__).resolve().parents[3] / "notebooks" / f"{template}.ipynb"
    code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "code")
    call = "setup_page(show_slurs=SHOW_SLURS)" if template in SLUR_PAGES else "setup_page()"
    assert len(re.findall(r"setup_page\(", code)) == 1 and call in code


@pytest.mark.parametrize("path", sorted((book.ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_every_template_is_a_valid_notebook(path):
    """A cell added by a script without an id passes papermill with a warning today and fails a future nbformat."""
    import warnings

    import nbformat

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    assert len({c.get("id") for c in nb.cells}) == len(nb.cells)


# The pages that show pessimal tokens or EloEverything extremes (slurs among them), as the FAccT paper warns; they
# can show the slurs in full (SHOW_SLURS). framing warns too: its affect words include sexual insults.
SLUR_PAGES = ("about", "distributions", "elo_misalignment", "identity_terms")
WARNING = "```{admonition} Content warning"


def _first_cell(name: str) -> dict:
    import json

    return json.loads(book.template(name).read_text())["cells"][0]


def _warned_pages() -> dict[str, str]:
    """Chapter -> its title, for every chapter whose page opens with the content warning."""
    out = {}
    for name in book.chapters():
        text = "".join(_first_cell(name)["source"])
        if WARNING in text:
            out[name] = text.split("\n", 1)[0].lstrip("# ").strip()
    return out


@pytest.mark.parametrize("name", SLUR_PAGES)
def test_pages_that_show_slurs_open_with_a_content_warning(name):
    first = _first_cell(name)
    text = "".join(first["source"])
    assert first["cell_type"] == "markdown" and WARNING in text
    assert text.index("Content warning") < 200  # at the top, under the title, before any content
    # the warning says that slurs are masked and how to show them; the parameter exists and defaults to masked
    assert "SHOW_SLURS" in text.split("```", 2)[1] and "masked" in text
    assert book.declared_parameters(name)["SHOW_SLURS"] == "False"


def test_the_landing_page_names_exactly_the_pages_that_warn():
    """The landing page's warning lists the warned pages by title; the list is checked against the pages themselves
    (it was kept by hand, and framing, whose affect words include sexual insults, was missing from both)."""
    import re

    intro = (book.ROOT / "book" / "intro.md").read_text()
    block = intro.split(WARNING, 1)[1].split("```", 1)[0]
    listed = set(re.search(r"Several pages \(([^)]*)\)", block).group(1).replace("*", "").split(", "))
    warned = _warned_pages()
    assert set(SLUR_PAGES) | {"framing"} <= warned.keys()
    # each listed name is how its page's title begins ("Score distributions" for "Score distributions and asymmetry")
    named = {name: [t for t in listed if title.startswith(t)] for name, title in warned.items()}
    assert all(len(ts) == 1 for ts in named.values()), named
    assert {ts[0] for ts in named.values()} == listed, (listed, warned)
    for name in warned:
        assert "".join(_first_cell(name)["source"]).index("Content warning") < 200


def _glossary_terms() -> set[str]:
    import re

    text = (book.ROOT / "book" / "glossary.md").read_text()
    body = text.split("```{glossary}", 1)[1].split("```", 1)[0]
    return {line.strip().lower() for line in body.splitlines() if line.strip() and not line.startswith(" ")}


def _term_links() -> dict[str, set[str]]:
    """Every {term} link in the templates and the book's pages, by the page it is on."""
    import json
    import re

    role = re.compile(r"\{term\}`([^`<]*?)(?:\s*<([^>]+)>)?`")
    pages = {p.stem: "".join("".join(c["source"]) for c in json.loads(p.read_text())["cells"])
             for p in (book.ROOT / "notebooks").glob("*.ipynb")}
    pages |= {p.stem: p.read_text() for p in (book.ROOT / "book").glob("*.md")}
    return {name: {(m.group(2) or m.group(1)).strip().lower() for m in role.finditer(text)}
            for name, text in pages.items()}


def test_every_term_link_has_a_glossary_entry():
    # a broken {term} link fails the strict HTML build, but only when that chapter is built: check them all here
    terms, links = _glossary_terms(), _term_links()
    assert {"rlhf", "policy", "dpo", "kl penalty", "chat template", "logit", "keys and values", "hc3",
            "wilson interval", "mantel test", "eigenvalue mass", "mwlr", "bonett–wright interval"} <= terms
    broken = {name: sorted(t - terms) for name, t in links.items() if t - terms}
    assert broken == {}
    linked = set().union(*links.values())
    assert {"rlhf", "policy", "dpo", "kl penalty", "chat template", "logit", "keys and values", "hc3",
            "wilson interval", "mantel test", "eigenvalue mass", "mwlr"} <= linked  # #28 item 3's terms


def test_each_chapter_is_resolved_once_with_its_test_parameters():
    ch = book.chapter("big_two")
    assert ch.template == book.NOTEBOOKS / "value_profiles.ipynb" and ch.defaults["CHAPTER"] == "big_two"
    assert ch.test_isolated_cache and ch.test_parameters["MODE"] == "compute" and ch.declares_results
    assert book.chapter("claims").reads and not book.chapter("about").declares_results
    for name in book.chapters():  # every test file names only parameters its template declares
        c = book.chapter(name)
        c.check([(f"{name}.test.yaml", c.test_parameters)])


def test_a_bad_test_parameter_file_is_a_clear_error(tmp_path, monkeypatch):
    import importlib

    chapters = importlib.import_module("rmbook.book.chapters")  # the module (the package exports a function of that name)
    (tmp_path / "about").mkdir()
    monkeypatch.setattr(chapters, "CHAPTERS", tmp_path)
    (tmp_path / "about" / "params.test.yaml").write_text("MODE: compute\n")  # not under `parameters:`
    with pytest.raises(book.BookError, match="may hold only `parameters:`"):
        book.chapter("about")
    (tmp_path / "about" / "params.test.yaml").write_text("parameters: {MODLES: [x]}\n")
    ch = book.chapter("about")
    with pytest.raises(book.BookError, match="MODLES"):
        ch.check([("about.test.yaml", ch.test_parameters)])


@pytest.mark.parametrize("chapter, old, new", [("blinding", "N_BOOTSTRAP", "N_RESAMPLES"),
                                                ("elo_misalignment", "N_BOOTSTRAP", "N_RESAMPLES_CI"),
                                                ("heterogeneity", "N_PERMUTATIONS", "N_RESAMPLES")])
def test_a_resampling_count_has_one_name(chapter, old, new):
    """One name per concept (#26 item 5): an old parameter file's N_BOOTSTRAP / N_PERMUTATIONS gets the new name."""
    with pytest.raises(book.BookError, match=f"'{old} \\(renamed {new}\\)'"):
        book.parameters(chapter, overrides={old: 99})
    for name in book.chapters():
        assert not {"N_BOOTSTRAP", "N_PERMUTATIONS"} & set(book.declared_parameters(name)), name


GLUED = re.compile(r"\{glue:text\}`([A-Za-z_]\w*)(?::[^`]*)?`")
# a parameter's name where the sentence means its value: "after `GAIN_STEPS` steps", "the `TAIL_K` most extreme"
NAME_FOR_VALUE = re.compile(r"\b(?:after|at least|reaches|marks|takes|the|on) `[A-Z][A-Z0-9_]+`|`[A-Z][A-Z0-9_]+` "
                            r"(?:searches|steps|items)\b")


@pytest.mark.parametrize("name", book.chapters())
def test_the_prose_states_parameter_values_not_only_their_names(name):
    """#43 item 5: a reader of "after `GAIN_STEPS` steps" must look the number up; the page states it (glued from
    the run, so a rerun's page states its own), with the name beside it for whoever reruns. Exercises and open
    questions, which ask the reader to change a parameter, name it."""
    import json

    cells = json.loads(book.template(name).read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    prose = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
             and not "".join(c["source"]).startswith(("## Exercises", "## Open questions", "## Rerun"))]
    for text in prose:
        assert not NAME_FOR_VALUE.search(text), f"{name}: {NAME_FOR_VALUE.search(text).group()!r} (state its value)"
        for glued in GLUED.findall(text):
            assert f'"{glued}"' in code and "glue(" in code, f"{name}: the prose shows {glued}, which is never glued"


@pytest.mark.parametrize("name", book.chapters())
def test_every_chapter_asks_for_a_prediction_before_its_results(name):
    """#43 item 9: a student guesses before seeing the result (ARENA's practice). The prompt and the cell for the
    guess come right after the page's setup, before the first chart or computed sentence; the book's page hides them
    (its reader meets the findings first, "In brief"), the course's student notebook keeps them."""
    cells = book.chapter(name).cells()["cells"]
    marked = [i for i, c in enumerate(cells) if "prediction" in c["metadata"].get("tags", [])]
    assert len(marked) == 2 and marked[1] == marked[0] + 1, marked
    prompt, guess = (cells[i] for i in marked)
    assert prompt["cell_type"] == "markdown" and "".join(prompt["source"]).startswith("```{admonition} Predict first")
    assert guess["cell_type"] == "code" and "my_prediction" in "".join(guess["source"])
    assert all("remove-cell" in cells[i]["metadata"]["tags"] for i in marked)
    code = [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    results = [i for i, src in code if "charts." in src or "prose.render(" in src or "claims_brief" in src]
    setup = next(i for i, src in code if "setup_page(" in src)
    assert setup < marked[0] and all(marked[1] < i for i in results if i > setup), (setup, marked, results[:3])
