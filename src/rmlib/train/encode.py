"""One rendering of a preference pair per base: its chat template around the response, truncated keeping the END.

With B = max_len - template tokens, responses and the prompt share B. If the prompt plus the longer response fit,
nothing is cut. Otherwise the responses get max(B - prompt tokens, B // 2) tokens (never more than they have), the
prompt gets the rest, and each keeps its LAST tokens: a response's ending (its conclusion, the part a reader judges
last) and the prompt's latest turn survive. Both responses of a pair see the same truncated prompt. The conversation
is built with :func:`rmlib.models.answer_slot`, token for token the one :func:`rmlib.engine.score_answers` scores.
"""
from __future__ import annotations

import pandas as pd

from rmlib.models.templates import TemplateError, answer_slot
from rmlib.train.config import TrainConfigError

__all__ = ["TRUNCATION_POLICY", "template_overhead", "PairEncoder", "encode_pairs"]

TRUNCATION_POLICY = ("keep_end: responses get max(B - prompt, B // 2) of B = max_len - template tokens; "
                     "prompt gets the rest; each keeps its last tokens")


def template_overhead(tokenizer, template: str) -> int:
    """Tokens the chat template adds around a one-token prompt and answer."""
    slot = answer_slot(tokenizer, "Hi", template)
    return len(slot.prefix_ids) - len(tokenizer("Hi", add_special_tokens=False).input_ids) + len(slot.suffix_ids)


class PairEncoder:
    """Renders (prompt, chosen, rejected) through one base's chat template, keeping the END (see module doc)."""

    def __init__(self, tokenizer, template: str, max_len: int):
        self.tok, self.template, self.max_len = tokenizer, template, max_len
        self.overhead = template_overhead(tokenizer, template)
        if max_len < self.overhead + 2:
            raise TrainConfigError(f"max_len={max_len} is shorter than the chat template itself ({self.overhead} "
                                   f"tokens) plus one prompt and one answer token; use max_len >= {self.overhead + 2}")

    def _ids(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False).input_ids)

    def encode(self, prompt: str, responses: list[str]) -> tuple[list[list[int]], bool]:
        """Token ids of each conversation and whether anything was cut."""
        out, cut, _ = self.encode_with_prompt_len(prompt, responses)
        return out, cut

    def encode_with_prompt_len(self, prompt: str, responses: list[str]) -> tuple[list[list[int]], bool, int]:
        """As :meth:`encode`, plus the number of leading tokens (the template up to the answer) the conversations
        share: what follows is the response and the template's end of turn, the completion DPO scores."""
        p_ids, r_ids = self._ids(prompt), [self._ids(r) for r in responses]
        budget = self.max_len - self.overhead
        longest = max(len(r) for r in r_ids)
        cut = len(p_ids) + longest > budget
        if cut:
            r_room = min(longest, max(budget - len(p_ids), budget // 2))
            p_ids = p_ids[len(p_ids) - min(len(p_ids), budget - r_room):]
            prompt = self.tok.decode(p_ids).strip() or prompt.strip()[-1:]
        while True:
            slot = answer_slot(self.tok, prompt, self.template)
            room = self.max_len - len(slot.prefix_ids) - len(slot.suffix_ids)
            if room >= 1 or len(prompt) <= 1:
                break
            prompt = prompt[1:]  # decoding can re-merge tokens at the cut; shorten until it fits
        if room < 1:
            raise TrainConfigError(f"max_len={self.max_len} leaves no room for the response")
        out = []
        for r in r_ids:
            cut |= len(r) > room
            out.append(slot.ids_for(r[max(0, len(r) - room):]))
        pad = self.tok.pad_token_id
        if any(ids[-1] == pad for ids in out):
            raise TrainConfigError("the chat template ends with the pad token, so the score position would be lost; "
                                   "give the tokenizer a different pad token")
        return out, cut, len(slot.prefix_ids)


def encode_pairs(tokenizer, template: str, pairs: pd.DataFrame, max_len: int) -> pd.DataFrame:
    """Columns chosen_ids, rejected_ids, truncated and prompt_len (the shared prefix up to the answer), added to the
    pairs (same rows, same order)."""
    enc = PairEncoder(tokenizer, template, max_len)
    rows = []
    for r in pairs.itertuples(index=False):
        try:
            (c, j), cut, n_prompt = enc.encode_with_prompt_len(r.prompt, [r.chosen, r.rejected])
        except TemplateError as e:
            raise TrainConfigError(f"pair {r.pair_id}: {e}") from None
        rows.append((c, j, cut, n_prompt))
    out = pairs.reset_index(drop=True).copy()
    out[["chosen_ids", "rejected_ids", "truncated", "prompt_len"]] = pd.DataFrame(rows, index=out.index)
    return out

