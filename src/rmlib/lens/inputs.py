"""The token ids the lens reads: conversations built as the engine builds them, and single-token answers.

An RM's reward of an answer is read at the last token of ``prefix + answer + suffix`` (:class:`rmlib.models.templates
.AnswerSlot`, the slot the engine fills); an LM's implicit reward of a one-token answer is its log-prob at the last
prefix token, whose logit the lens splits (log-probs of two answers under one prompt differ by their logits' gap).
Patching swaps one input's block outputs into another's position by position, so a pair must have the same length:
one-token answers under one prompt do.
"""
from __future__ import annotations

from rmlib.lens.blocks import LensError
from rmlib.models.templates import answer_slot, check_answer

__all__ = ["single_tokens", "conversation_ids", "prompt_ids"]


def single_tokens(tokenizer, words) -> tuple[dict, list]:
    """({word: its one token id} for the words the tokenizer keeps whole, [the words it splits])."""
    kept, split = {}, []
    for w in words:
        ids = tokenizer(w, add_special_tokens=False).input_ids
        if len(ids) == 1:
            kept[w] = ids[0]
        else:
            split.append(w)
    return kept, split


def conversation_ids(tokenizer, template: str, prompt: str, answers) -> list[list[int]]:
    """``prefix + answer + suffix`` ids of each answer under ``prompt`` (an answer: a string or a list of ids)."""
    slot = answer_slot(tokenizer, prompt, template)
    out = []
    for a in answers:
        if isinstance(a, str):
            check_answer(tokenizer, a)
            a = tokenizer(a, add_special_tokens=False).input_ids
        if not a:
            raise LensError("an answer has no tokens")
        out.append(slot.ids_for(a))
    return out


def prompt_ids(tokenizer, template: str, prompt: str) -> list[int]:
    """The templated prefix an LM continues with its answer (the implicit reward's context)."""
    return list(answer_slot(tokenizer, prompt, template).prefix_ids)
