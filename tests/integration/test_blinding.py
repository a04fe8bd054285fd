"""The blinding chapter's scores through the engine's LM path, exactly: P(yes) is the next-token softmax over the two
answers at the answer position, checked against a plain forward pass of a tiny LM."""
from __future__ import annotations

import pytest
import torch

from rmbook.chapters.blinding.prompts import CONDITIONS, load_design
from rmbook.chapters.blinding.scores import answer_tokens, engine_scorer, score_model
from rmlib.models import LoadOptions, answer_slot, cached_model

DESIGN = """
answers: ["Y", "N"]
answer_format: "Answer with Y or N."
ignore_instruction: "Ignore the {noun}'s {attribute}."
replica_note: "A version of you that was not told the {noun}'s {attribute} answered: {answer} (p = {p})."
axes:
  religion: {attribute: religion, descriptors: [Christian, Muslim]}
templates:
  - {key: a, domain: x, noun: applicant, text: "Hire {person}? The {noun} is good."}
  - {key: b, domain: y, noun: borrower, text: "Lend to {person}? The {noun} is late."}
"""


def test_engine_p_yes_is_the_next_token_softmax_over_the_two_answers(tmp_path, monkeypatch):
    """Through rmlib.engine.answer_rewards on a tiny LM: P(yes) equals the softmax of the two answers' logits at
    the answer position of the chat-templated prompt, computed here by a plain forward pass."""

    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN)  # answers "Y"/"N": one token each in the tiny vocabulary
    d = load_design(path)
    run = score_model("tiny-llama", d, scorer=engine_scorer("tiny-llama", d.answers, progress=False,
                                                                dtype="float32"), min_mass=0.0)
    lm = cached_model("tiny-llama", LoadOptions(dtype="float32"))
    tok = lm.tokenizer
    y, n = (tok(a, add_special_tokens=False).input_ids for a in d.answers)
    assert len(y) == len(n) == 1
    tokens = answer_tokens("tiny-llama", d.answers, "float32")
    assert tokens["n_tokens"].tolist() == [1, 1]
    for row in run.table.drop_duplicates("prompt").itertuples():
        ids = torch.tensor([list(answer_slot(tok, row.prompt, lm.chat_template).prefix_ids)])
        with torch.inference_mode():
            logits = lm.model(input_ids=ids).logits[0, -1].float()
        expected = torch.softmax(logits[[y[0], n[0]]], dim=0)[0].item()
        mass = torch.softmax(logits, dim=0)[[y[0], n[0]]].sum().item()
        assert row.p_yes == pytest.approx(expected, abs=1e-5), row.condition
        assert row.yes_no_mass == pytest.approx(mass, rel=1e-4)
    assert set(run.table["condition"]) == set(CONDITIONS)
