"""The round-trip audit: how many token ids change when decoded to text and encoded again (paper mode's id drift),
and how many BOS tokens each mode puts in front of the conversation."""
from __future__ import annotations

import numpy as np

from rmlib.engine.checks import candidate_ids, resolve_model
from rmlib.models.templates import answer_slot, paper_text

__all__ = ["roundtrip_audit"]


def roundtrip_audit(model, tokens=None, *, load=None) -> dict:
    """Share of ids that do not survive decode->encode, the cause of paper mode's id drift.

    `model` is a LoadedModel or an id (cached per process, loaded with `load`)."""
    lm = resolve_model(model, load)
    tok = lm.tokenizer
    ids = candidate_ids(lm, tokens)
    decoded = tok.batch_decode([[int(i)] for i in ids])
    encoded = tok(decoded, add_special_tokens=False).input_ids
    changed = np.array([enc != [int(i)] for i, enc in zip(ids, encoded)])
    slot = answer_slot(tok, "What is the best thing ever?", lm.chat_template)
    paper_ids = tok(paper_text(tok, slot.prompt, "x", lm.chat_template)).input_ids
    bos = tok.bos_token_id
    return {"model": lm.spec.id, "n_ids": int(len(ids)), "n_changed": int(changed.sum()),
            "share_changed": float(changed.mean()),
            "examples": [(int(i), d, e) for i, d, e, c in zip(ids, decoded, encoded, changed) if c][:10],
            "paper_mode_leading_bos": int(sum(1 for t in paper_ids[:3] if bos is not None and t == bos)),
            "id_exact_leading_bos": int(sum(1 for t in slot.prefix_ids[:3] if bos is not None and t == bos))}
