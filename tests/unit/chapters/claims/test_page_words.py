"""#63 item 8: words on the pages that no number there shows, and the claims page's own statement of its rules."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_claims_notebook_states_the_rules_the_code_applies():
    cells = ["".join(c["source"]) for c in json.loads((ROOT / "notebooks" / "claims.ipynb").read_text())["cells"]]
    text = _flat(" ".join(cells))
    assert "more units clearly against than for" not in text  # the rule before #38
    assert "the evidence points the claimed way" not in text  # "not established" names no direction
    assert "whichever way its estimate points" in text and "partly** (with the way it leans" in text


def test_no_sentence_claims_what_frequency_and_length_explain_without_a_number():
    chapters = ROOT / "src" / "rmbook" / "chapters"
    profiles = _flat((chapters / "value_profiles" / "prose.md.j2").read_text())
    implicit = _flat((chapters / "implicit_rewards" / "prose.md.j2").read_text())
    assert "mostly reflect how frequent and short a word is" not in profiles
    assert "frequency and length still dominate raw log-probs" not in implicit


def test_the_method_page_does_not_claim_for_trained_rms_what_it_measured_on_an_untrained_head():
    method = _flat((ROOT / "src" / "rmbook" / "chapters" / "method" / "prose.md.j2").read_text())
    assert "With a trained RM the same mechanics move real rewards" not in method
    assert "measured with an untrained head only" in method
