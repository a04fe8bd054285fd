"""Checks of the method chapter's exercises: the decode → re-encode round trip of token ids, and the id-exact token
ids an RM scores for a one-token answer (the chat template around it, exactly one BOS).

The planted tokenizers are rmlib's tiny byte-level BPE ones (:func:`rmlib.models.tiny.tiny_tokenizer`, built in
milliseconds, no download); their round trip is known: the 128 byte tokens of bytes 0x80–0xFF are fragments of UTF-8
characters, decode to "�" and re-encode to other ids, every other id (special tokens included) comes back.
"""
from __future__ import annotations

from rmbook.course.exercises import exercise, expect

PROMPT = "What, in one word, is the greatest thing ever?"


def _tokenizer(family: str):
    from rmlib.models.tiny import tiny_tokenizer  # torch and transformers: only when a check runs

    return tiny_tokenizer(family)


def _truth(tok, ids) -> list[int]:
    """The ids that do not come back as themselves from decode → encode (what rmlib.engine.roundtrip_audit counts)."""
    decoded = tok.batch_decode([[int(i)] for i in ids])
    encoded = tok(decoded, add_special_tokens=False).input_ids
    return [int(i) for i, e in zip(ids, encoded) if e != [int(i)]]


def _show(tok, ids, n: int = 4) -> str:
    return ", ".join(f"{i} ({tok.decode([i])!r})" for i in list(ids)[:n]) + (" ..." if len(ids) > n else "")


@exercise("method.round_trip")
def check_round_trip(changed_ids) -> int:
    """``changed_ids(tokenizer, ids)``: the ids among ``ids`` that decode → re-encode does not give back as
    themselves, on a Llama-style tokenizer (adds a BOS) and a ChatML one (no BOS), ids 0–319 and a few picked."""
    cases = 0
    planted = (("llama", list(range(320))), ("qwen2", list(range(320))), ("gemma3", [0, 5, 90, 140, 200, 300]))
    for family, ids in planted:
        tok = _tokenizer(family)
        want = _truth(tok, ids)
        got = changed_ids(tok, list(ids))
        try:
            got = sorted(int(i) for i in got)
        except (TypeError, ValueError):
            expect(False, f"return a list of the token ids that change (ints), not {type(got).__name__} {got!r:.80}")
        if got == sorted(want):
            cases += 1
            continue
        where = f"On the tiny {family} tokenizer, ids {ids[0]}–{ids[-1]}," if len(ids) > 10 else f"On ids {ids},"
        extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        specials = set(tok.all_special_ids) | {int(i) for i, t in tok.added_tokens_decoder.items() if t.special}
        hint = ""
        if not got and want:
            hint = (" You found none: compare the re-encoded *ids* with [id], not the texts. A byte fragment decodes "
                    "to '�', which re-encodes to other ids that decode to the same '�'.")
        elif sorted(got) == sorted(set(ids) - set(want)):
            hint = " That is the other way round: return the ids that change, not those that survive."
        elif len(got) == len(ids) and tok.bos_token_id is not None:
            hint = (" Every id changed: encoding with the tokenizer's special tokens puts a BOS in front of each. "
                    "Re-encode with add_special_tokens=False.")
        elif extra and set(extra) <= specials:
            hint = (" The extra ids are special tokens: decoding with skip_special_tokens=True turns them into ''. "
                    "Decode each id as it is; a special token's text re-encodes to its own id.")
        expect(False, f"{where} you return {len(got)} changed ids, the round trip changes {len(want)}."
                      + (f" Not changed, but in your list: {_show(tok, extra)}." if extra else "")
                      + (f" Changed, but missing: {_show(tok, missing)}." if missing else "") + hint)
    return cases


def _slot(tok, template, token_id) -> list[int]:
    from rmlib.models.templates import answer_slot

    return answer_slot(tok, PROMPT, template).ids_for([int(token_id)])


# a Llama-style template that leaves the BOS to the tokenizer (as some hub models' templates do)
_NO_BOS = ("{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n{{ m['content'] | trim }}"
           "<|eot_id|>{% endfor %}")


@exercise("method.answer_ids")
def check_answer_ids(answer_ids) -> int:
    """``answer_ids(tokenizer, chat_template, prompt, token_id)``: the id-exact sequence of rmlib.engine (the
    template's prefix and suffix ids around the candidate id itself, exactly one BOS where the model uses one), on
    Llama, Gemma and ChatML templates, a template that leaves the BOS to the tokenizer, and a byte-fragment id."""
    cases = []
    for family in ("llama", "gemma3", "qwen2"):
        tok = _tokenizer(family)
        cases += [(f"the tiny {family} tokenizer and its template", tok, tok.chat_template, i) for i in (89, 150)]
    tok = _tokenizer("llama")
    cases.append(("a Llama template without {{ bos_token }} (the tokenizer adds the BOS)", tok, _NO_BOS, 89))
    for name, tok, template, token_id in cases:
        want = _slot(tok, template, token_id)
        got = answer_ids(tok, template, PROMPT, token_id)
        try:
            got = [int(i) for i in got]
        except (TypeError, ValueError):
            expect(False, f"return a list of token ids (ints), not {type(got).__name__} {got!r:.80}")
        if got == want:
            continue
        bos = tok.bos_token_id
        where = f"With {name}, answer id {token_id} ({tok.decode([token_id])!r})"
        hint = ""
        if bos is not None and got[:2] == [bos, bos]:
            hint = (" It starts with two BOS tokens: the rendered template already begins with the BOS, and encoding "
                    "with add_special_tokens=True adds another. Encode the template's text with "
                    "add_special_tokens=False.")
        elif bos is not None and want[:1] == [bos] and got[:1] != [bos] and got == want[1:]:
            hint = (" The BOS is missing: this template does not render one, but the tokenizer puts one in front of "
                    "everything it encodes (tokenizer('a').input_ids starts with it), and the model was trained "
                    "with it. Add it when the prefix lacks it.")
        elif len(got) <= 3 or got in ([int(token_id)], [bos, int(token_id)]):
            hint = (" That is the answer without the chat template: an RM scores the whole conversation, the user's "
                    "prompt and the assistant's turn around the answer.")
        elif int(token_id) not in got:
            hint = (" The candidate id is not in it: you decoded it to text and re-encoded it (paper mode), which "
                    f"turns it into {tok(tok.decode([token_id]), add_special_tokens=False).input_ids}. Put the id "
                    "itself between the prefix and suffix ids.")
        elif len(got) < len(want) and got == want[:len(got)]:
            hint = " The end is missing: keep the template's suffix (the end-of-turn marker) after the answer id."
        first = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        expect(False, f"{where}: you give {len(got)} ids, rmlib scores {len(want)}; they first differ at position "
                      f"{first} (yours {tok.convert_ids_to_tokens(got[first:first + 3])}, rmlib's "
                      f"{tok.convert_ids_to_tokens(want[first:first + 3])}).{hint}")
    return len(cases)
