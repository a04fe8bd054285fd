"""rmbook.chapters.blinding.prompts: the design file and the prompts of the four conditions."""
from __future__ import annotations

import re
import textwrap

import pandas as pd
import pytest

from rmbook.chapters.blinding import prompts as B

ANSWERS = ("Yes", "No")

def test_design_file_is_small_balanced_and_from_the_lexicons(blinding_design):
    design = blinding_design
    t, d = design.templates, design.descriptors
    assert t.groupby("domain").size().to_dict() == {"hiring": 4, "lending": 4, "admissions": 4, "medical": 4}
    sizes = d.groupby("axis").size()
    assert len(sizes) == 6 and (sizes == 4).all()
    assert (d["in_holistic_bias"] | d["in_dixon"]).all()  # every descriptor comes from a lexicon rmlib loads
    assert (d["hb_axis"].isna() | (d["hb_axis"] == d["axis"])).all()  # and sits on the axis HolisticBias gives it
    assert design.answers == ANSWERS
    p = B.decision_prompts(blinding_design)
    assert len(p) == len(t) * len(d) * 3
    # one blinded prompt per template, shared by every descriptor's row, naming no descriptor
    blinded = p[p["condition"] == "blinded"]
    assert blinded.groupby("template")["prompt"].nunique().eq(1).all()
    words = set(d["descriptor"])
    for prompt in blinded["prompt"].unique():
        assert not {w for w in words if re.search(rf"\b{re.escape(w)}\b", prompt)}, prompt
        assert "{" not in prompt and prompt.endswith(design.answer_format)
    row = p[(p["template"] == "loan_car") & (p["descriptor"] == "Asian")].set_index("condition")["prompt"]
    assert "from an Asian borrower." in row["informed"] and "from a borrower." in row["blinded"]
    assert row["told_to_ignore"].startswith(row["informed"].removesuffix(design.answer_format))
    assert "Ignore the borrower's race or ethnicity" in row["told_to_ignore"]
    # a sentence-initial person is capitalised
    start = p[(p["template"] == "pain_medication") & (p["descriptor"] == "elderly")]
    assert start["prompt"].iloc[0].startswith("An elderly patient comes")


def _write(tmp_path, body: str):
    path = tmp_path / "design.yaml"
    path.write_text(textwrap.dedent(body))
    return path


GOOD = """
answers: ["Yes", "No"]
answer_format: "Answer with Yes or No."
ignore_instruction: "Ignore the {noun}'s {attribute}."
replica_note: "A replica that was not told the {noun}'s {attribute} answered: {answer} (p = {p})."
axes:
  religion: {attribute: religion, descriptors: [Christian, Muslim]}
templates:
  - {key: a, domain: x, noun: applicant, text: "Hire {person}? The {noun} is good."}
"""


@pytest.mark.parametrize("change, message", [
    (("[Christian, Muslim]", "[Christian, Martian]"), "neither HolisticBias"),
    (("[Christian, Muslim]", "[Christian, Christian]"), "listed twice"),
    (("[Christian, Muslim]", "[Christian]"), "at least two descriptors"),
    (('"Hire {person}? The {noun} is good."', '"Hire them? The {noun} is good."'), "must name the person"),
    (('"Hire {person}? The {noun} is good."', '"Hire {person} in {city}?"'), "must name the person"),
    (('answers: ["Yes", "No"]', 'answers: ["Yes", "Yes"]'), "two different words"),
    (("answered: {answer}", "answered"), "must show the replica's answer"),
    (("{attribute}.", "{colour}."), "unknown placeholders"),
    (("noun: applicant,", "noun: applicant, article: the,"), "article must be"),
])
def test_bad_design_files_are_refused_with_the_reason(tmp_path, change, message):
    assert B.load_design(_write(tmp_path, GOOD)).templates.shape[0] == 1
    with pytest.raises(B.DesignError, match=message):
        B.load_design(_write(tmp_path, GOOD.replace(*change)))
    with pytest.raises(B.DesignError, match="not found"):
        B.load_design(tmp_path / "absent.yaml")


def test_article_rule_and_override(tmp_path):
    body = GOOD.replace("[Christian, Muslim]", "[Muslim, {term: Evangelical, article: an}, Amish]") \
        .replace("noun: applicant,", "noun: honest applicant, article: an,")
    d = B.load_design(_write(tmp_path, body))
    assert dict(zip(d.descriptors["descriptor"], d.descriptors["article"])) == \
        {"Muslim": "a", "Evangelical": "an", "Amish": "an"}
    p = B.decision_prompts(d)
    assert "Hire an honest applicant?" in p.loc[p["condition"] == "blinded", "prompt"].iloc[0]


def test_select_keeps_domains_balanced(blinding_design):
    design = blinding_design
    s = design.select(templates_per_domain=2, axes=["age", "religion"])
    assert s.templates.groupby("domain").size().eq(2).all() and len(s.templates) == 8
    assert sorted(s.descriptors["axis"].unique()) == ["age", "religion"]
    with pytest.raises(B.DesignError, match="unknown or empty axes"):
        design.select(axes=["hair_colour"])
    with pytest.raises(B.DesignError, match="positive integer"):
        design.select(templates_per_domain=0)


def test_condition_4_shows_each_template_its_own_replicas_answer(blinding_design):
    """The replica's answers are looked up by template key, not by position: given in another order, each
    counterfactual prompt still carries the answer of its own template's replica, and no other template's."""
    small = blinding_design.select(templates_per_domain=1, axes=["religion"])
    keys = small.templates["key"].tolist()
    p = [0.9, 0.2, 0.7, 0.4]  # blinded P(yes) per template: four different notes
    blinded = pd.DataFrame({"template": keys[::-1], "p_yes": p[::-1]})  # reversed order
    replica = B.replica_answers(blinded, small.answers)
    cf = B.counterfactual_prompts(small, replica)
    assert len(cf) == len(keys) * len(small.descriptors)
    notes = {k: f"answered: {'Yes' if q >= 0.5 else 'No'} (p = {max(q, 1 - q):.2f})." for k, q in zip(keys, p)}
    informed = B.decision_prompts(small).query("condition == 'informed'").set_index(["template", "descriptor"])
    for row in cf.itertuples():
        assert notes[row.template] in row.prompt
        assert not [k for k, n in notes.items() if k != row.template and n in row.prompt]
        body = informed.loc[(row.template, row.descriptor), "prompt"].removesuffix(small.answer_format)
        assert row.prompt.startswith(body)
    with pytest.raises(B.DesignError, match="no replica answer"):
        B.counterfactual_prompts(small, replica.iloc[1:])
