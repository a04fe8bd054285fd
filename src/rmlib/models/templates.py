"""Chat templates: turn a prompt into token ids around an answer slot.

Sweeps insert a candidate *token id* between a fixed prefix and suffix, so the
chat template is rendered once with a sentinel answer and split on it. This
keeps exactly one BOS and never re-tokenises the candidate (the original code
decoded ids to text and re-encoded them, which changes some ids and doubles BOS).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from rmlib.errors import RmlibError

SENTINEL = "\u2063RMLIB_ANSWER\u2063"

# Explicit templates for tokenizers that ship none (base models), as RewardBench keeps.
FALLBACK_TEMPLATES = {
    "gemma": (
        "{{ bos_token }}{% for message in messages %}"
        "<start_of_turn>{{ 'model' if message['role'] == 'assistant' else message['role'] }}\n"
        "{{ message['content'] | trim }}<end_of_turn>\n{% endfor %}"
        "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
    ),
    "chatml": (
        "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    ),
}


class TemplateError(RmlibError, ValueError):
    pass


@dataclass(frozen=True)
class AnswerSlot:
    """Token ids of a conversation with one hole where the assistant's answer goes."""
    prompt: str
    prefix_ids: tuple[int, ...]
    suffix_ids: tuple[int, ...]
    template: str

    @property
    def template_hash(self) -> str:
        return hashlib.sha256(self.template.encode()).hexdigest()[:16]

    def ids_for(self, answer_ids) -> list[int]:
        return [*self.prefix_ids, *answer_ids, *self.suffix_ids]


def chat_template_of(tokenizer, fallback: str | None = None) -> str:
    if tokenizer.chat_template:
        return tokenizer.chat_template
    if fallback:
        if fallback not in FALLBACK_TEMPLATES:
            raise TemplateError(f"unknown fallback chat template {fallback!r}; known: {sorted(FALLBACK_TEMPLATES)}")
        return FALLBACK_TEMPLATES[fallback]
    raise TemplateError(
        "this tokenizer has no chat template and the model's registry entry names no fallback. "
        f"Add `chat_template: <name>` to its entry (one of {sorted(FALLBACK_TEMPLATES)}) or pass chat_template=...")


def check_prompt(tokenizer, prompt: str) -> None:
    """Refuse prompts that smuggle template control tokens (they would break the turn structure)."""
    _check_text(tokenizer, prompt, "prompt")


def check_answer(tokenizer, answer: str) -> None:
    """Refuse answers with template control tokens: an answer that closes the assistant turn and opens another
    would be scored as a different conversation (the same rule as prompts)."""
    _check_text(tokenizer, answer, "answer")


def _check_text(tokenizer, text: str, what: str) -> None:
    if not isinstance(text, str):
        raise TemplateError(f"the {what} must be a string, not {type(text).__name__} {text!r:.60}")
    if not text.strip():
        raise TemplateError(f"the {what} is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        # a lone surrogate: e.g. non-UTF-8 bytes on the command line, which Python keeps as surrogate escapes
        raise TemplateError(f"the {what} {text[:60]!r} is not valid Unicode text: character {exc.start} "
                            f"({text[exc.start]!r}) cannot be encoded as UTF-8 (non-UTF-8 bytes, e.g. Latin-1 text "
                            "typed into a non-UTF-8 terminal); give the text in UTF-8") from None
    specials = {t for t in getattr(tokenizer, "all_special_tokens", []) if t}
    specials |= {t.content for t in getattr(tokenizer, "added_tokens_decoder", {}).values() if t.special}
    found = sorted(t for t in specials if t in text)
    if found:
        raise TemplateError(f"the {what} {text[:60]!r} contains template control token(s) {found}; remove them")
    if SENTINEL in text:
        raise TemplateError(f"the {what} contains rmlib's internal sentinel")


def _adds_bos(tokenizer) -> bool:
    bos = tokenizer.bos_token_id
    if bos is None:
        return False
    with_special = tokenizer("a").input_ids
    return len(with_special) > 0 and with_special[0] == bos and tokenizer("a", add_special_tokens=False).input_ids[:1] != [bos]


def answer_slot(tokenizer, prompt: str, template: str | None = None, system: str | None = None) -> AnswerSlot:
    """Prefix and suffix ids for `prompt`, with exactly one BOS when the model uses one."""
    check_prompt(tokenizer, prompt)
    template = template or chat_template_of(tokenizer)
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": prompt}, {"role": "assistant", "content": SENTINEL}]
    text = tokenizer.apply_chat_template(messages, chat_template=template, tokenize=False)
    if text.count(SENTINEL) != 1:
        raise TemplateError("the chat template did not render the assistant answer exactly once")
    pre, post = text.split(SENTINEL)
    prefix = list(tokenizer(pre, add_special_tokens=False).input_ids)
    suffix = list(tokenizer(post, add_special_tokens=False).input_ids)
    bos = tokenizer.bos_token_id
    if bos is not None and _adds_bos(tokenizer):
        while prefix[:2] == [bos, bos]:
            prefix = prefix[1:]
        if prefix[:1] != [bos]:
            prefix = [bos] + prefix
    return AnswerSlot(prompt=prompt, prefix_ids=tuple(prefix), suffix_ids=tuple(suffix), template=template)


def paper_text(tokenizer, prompt: str, answer_text: str, template: str | None = None) -> str:
    """The full conversation as text, the way the original code built it before re-tokenising."""
    template = template or chat_template_of(tokenizer)
    messages = [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer_text}]
    return tokenizer.apply_chat_template(messages, chat_template=template, tokenize=False)
