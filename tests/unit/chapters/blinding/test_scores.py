"""rmbook.chapters.blinding.scores: the four conditions scored in order, P(yes) from LM log-probs and RM
rewards, usability, and RMs that do not exist yet."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.blinding import scores as B

ANSWERS = ("Yes", "No")

def test_counterfactual_prompt_shows_the_replica_answer_of_its_own_template(planted):
    small, scorer, run = planted
    t = run.table
    # scored in order: blinded first, then informed/told-to-ignore, then the counterfactual prompts
    assert len(scorer.calls) == 3 and all("A version of you" in p for p in scorer.calls[2])
    notes = {}
    for key, base in zip(small.templates["key"], scorer.BASE):
        answer, p = ("Yes", base) if base >= 0.5 else ("No", 1 - base)
        notes[key] = f"answered: {answer} (p = {p:.2f})."
    assert len(set(notes.values())) == len(notes)  # four different notes, so a mix-up would show
    cf = t[t["condition"] == "counterfactual"]
    for row in cf.itertuples():
        assert notes[row.template] in row.prompt
        assert not [k for k, n in notes.items() if k != row.template and n in row.prompt]
        assert row.prompt.startswith(t[(t["condition"] == "informed") & (t["template"] == row.template)
                                       & (t["descriptor"] == row.descriptor)]["prompt"].iloc[0]
                                     .removesuffix(small.answer_format))
    # the replica columns say the same as the text
    rep = t.drop_duplicates("template").set_index("template")
    for key, base in zip(small.templates["key"], scorer.BASE):
        assert rep.loc[key, "replica_yes"] == (base >= 0.5)
        assert rep.loc[key, "replica_p"] == pytest.approx(max(base, 1 - base))


def test_a_model_that_does_not_answer_yes_or_no_is_not_usable(blinding_design, planted_scorer):
    small = blinding_design.select(templates_per_domain=1, axes=["religion", "age"])
    scorer = planted_scorer(small, mass=0.01)
    run = B.score_model("stub", small, scorer=scorer, min_mass=0.5)
    assert not run.usable and run.mean_mass == pytest.approx(0.01)
    assert len(scorer.calls) == 1  # only the blinded prompts were scored
    assert set(run.table["condition"]) == {"blinded"}


def test_rm_p_yes_is_the_bradley_terry_probability():
    rows = pd.DataFrame({"prompt": ["q", "q", "r", "r"], "answer": ["Yes", "No", "Yes", "No"],
                         "reward": [1.5, -0.5, 0.0, 0.0], "reward_kind": ["RM score"] * 4})
    out = B.p_yes(rows, ANSWERS).set_index("prompt")
    assert out.loc["q", "p_yes"] == pytest.approx(1 / (1 + np.exp(-2.0))) and out.loc["r", "p_yes"] == 0.5
    assert out["yes_no_mass"].isna().all() and out.loc["q", "margin"] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="every prompt needs a reward"):
        B.p_yes(rows.iloc[:3], ANSWERS)


def test_missing_local_rms_are_reported_not_fatal():
    ok, missing = B.split_available(["tiny-llama", "local:no-such-rm"])
    assert ok == ["tiny-llama"] and list(missing) == ["local:no-such-rm"]
    assert "no trained RM" in missing["local:no-such-rm"]
