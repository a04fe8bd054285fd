"""The round-trip audit: how many token ids change when decoded to text and encoded again (paper mode's id drift),
and how many BOS tokens each mode puts in front of the conversation."""
from __future__ import annotations

import numpy as np

from rmlib.engine.checks import candidate_ids, resolve_model
from rmlib.models.templates import answer_slot, paper_text

__all__ = ["roundtrip_audit"]


PARTIAL_UTF8, SPECIAL, SPLIT, OTHER_ID, NOTHING = (
    "part of a UTF-8 character (decodes to U+FFFD)", "special token", "re-encodes to several ids",
    "re-encodes to another id", "re-encodes to nothing")


def _why(token_id: int, decoded: str, encoded: list, special: set) -> str:
    """Which kind of id a changed one is (the kinds of ``by_kind``)."""
    if token_id in special:
        return SPECIAL
    if "\ufffd" in decoded:
        return PARTIAL_UTF8
    if not encoded:
        return NOTHING
    return SPLIT if len(encoded) > 1 else OTHER_ID


def _distinct(changed: list[tuple], per_kind: int = 3) -> list[dict]:
    """Up to ``per_kind`` examples of each kind, one per distinct (decoded, re-encoded) pair, with how many ids
    share it (many byte tokens all decode to U+FFFD and re-encode alike)."""
    seen: dict[tuple, dict] = {}
    for i, d, e, kind in changed:
        pair = (d, tuple(e))
        if pair in seen:
            seen[pair]["n_ids"] += 1
        elif sum(x["kind"] == kind for x in seen.values()) < per_kind:
            seen[pair] = {"kind": kind, "id": i, "decoded": d, "encoded": list(e), "n_ids": 1}
    return list(seen.values())


def roundtrip_audit(model, tokens=None, *, load=None) -> dict:
    """Share of ids that do not survive decode->encode, the cause of paper mode's id drift.

    ``by_kind`` counts the changed ids by why they change (a byte of a UTF-8 character, a special token, one that
    re-encodes to several ids or to another one); ``distinct_examples`` has a few of each kind, one per distinct
    (decoded, re-encoded) pair; ``examples`` the first ten changed ids as they come.
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
    special = {int(i) for i in tok.all_special_ids}
    why = [(int(i), d, list(e), _why(int(i), d, e, special)) for i, d, e, c in zip(ids, decoded, encoded, changed)
           if c]
    kinds = [w[3] for w in why]
    return {"model": lm.spec.id, "n_ids": int(len(ids)), "n_changed": int(changed.sum()),
            "share_changed": float(changed.mean()),
            "by_kind": {k: kinds.count(k) for k in sorted(set(kinds), key=lambda k: -kinds.count(k))},
            "distinct_examples": _distinct(why),
            "examples": [(i, d, e) for i, d, e, _ in why][:10],
            "paper_mode_leading_bos": int(sum(1 for t in paper_ids[:3] if bos is not None and t == bos)),
            "id_exact_leading_bos": int(sum(1 for t in slot.prefix_ids[:3] if bos is not None and t == bos))}
