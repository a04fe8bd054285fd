"""rmbook.chapters.implicit_vs_explicit.token_shift: each rewrite on known text, deterministic, applied to both
responses alike."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.implicit_vs_explicit.token_shift import jaccard, rewrite, shift_pairs

TEXT = "I do not think it is a good idea! Be careful; it's unlikely to work."


def test_each_rule_on_known_text():
    assert rewrite(TEXT, ["casing"]) == "I do not think it is a good idea! be careful; it's unlikely to work."
    assert rewrite(TEXT, ["punctuation"]) == "I do not think it is a good idea. Be careful, it's unlikely to work"
    assert rewrite(TEXT, ["contractions"]) == "I don't think it's a good idea! Be careful; it is unlikely to work."
    assert rewrite("Don't go. Cannot stop.", ["contractions"]) == "Do not go. Can't stop."  # capitals kept
    with pytest.raises(ValueError, match="unknown rewrite"):
        rewrite(TEXT, ["paraphrase"])


def test_synonyms_swap_base_form_adjectives_from_wordnet(wn):
    assert rewrite(TEXT, ["synonyms"]) == "I do not think it is a good idea! Be careful; it's improbable to work."
    # names (mid-sentence capitals), short words and inflected forms are left alone
    assert rewrite("Ask Rapid Bob, he is big.", ["synonyms"]) == "Ask Rapid Bob, he is big."


def test_shift_pairs_rewrites_both_sides_alike_and_keeps_ids_order_and_prompt(wn):
    pairs = pd.DataFrame({"pair_id": ["a", "b"], "prompt": ["Is it SAFE?", "Hi!"],
                          "chosen": ["It is not safe!", "Hello; nice to meet you."],
                          "rejected": ["It is safe!", "Hello; nice to meet you."]})
    out = shift_pairs(pairs)
    assert out["pair_id"].tolist() == ["a", "b"] and out["prompt"].tolist() == pairs["prompt"].tolist()
    assert out.loc[0, "chosen"] == "it's not safe" and out.loc[0, "rejected"] == "it's safe"
    # identical responses stay identical: the rewrite never looks at which side was chosen
    assert out.loc[1, "chosen"] == out.loc[1, "rejected"]
    swapped = shift_pairs(pairs.rename(columns={"chosen": "rejected", "rejected": "chosen"}))
    assert swapped["chosen"].tolist() == out["rejected"].tolist()
    assert out["changed"].all()
    # word overlap ignores case and punctuation: only the contractions changed words
    assert 0 < out.loc[0, "kept_words"] < 1 and out.loc[1, "kept_words"] == 1
    assert shift_pairs(pairs).equals(out)  # deterministic


def test_jaccard():
    assert jaccard("a b c", "A b d") == pytest.approx(2 / 4)
    assert jaccard("", "") == 1.0 and jaccard("x", "") == 0.0
