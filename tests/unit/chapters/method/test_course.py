"""The method exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers, with a
message that names the mistake."""
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

pytest.importorskip("transformers")


@pytest.mark.parametrize("ex", ["method.round_trip", "method.answer_ids"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 3


# planted wrong answers for the round trip, each with the words the hint must contain
def with_bos(tok, ids):  # re-encodes with the tokenizer's special tokens: a BOS in front of every id
    return [i for i in ids if tok(tok.decode([i])).input_ids != [i]]


def by_text(tok, ids):  # compares texts, not ids: "�" comes back as "�"
    return [i for i in ids if tok.decode(tok(tok.decode([i]), add_special_tokens=False).input_ids) != tok.decode([i])]


def skipping_specials(tok, ids):
    return [i for i in ids
            if tok(tok.decode([i], skip_special_tokens=True), add_special_tokens=False).input_ids != [i]]


def survivors(tok, ids):
    return [i for i in ids if tok(tok.decode([i]), add_special_tokens=False).input_ids == [i]]


@pytest.mark.parametrize("wrong, hint", [(with_bos, "add_special_tokens=False"), (by_text, "not the texts"),
                                         (skipping_specials, "skip_special_tokens"), (survivors, "other way round")])
def test_round_trip_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("method.round_trip", wrong)


# planted wrong answers for the id-exact ids
def _messages(prompt, answer):
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]


def doubled_bos(tok, template, prompt, token_id):  # the rendered BOS, then the tokenizer's own
    before, after = tok.apply_chat_template(_messages(prompt, "@@"), chat_template=template, tokenize=False).split("@@")
    return [*tok(before).input_ids, token_id, *tok(after, add_special_tokens=False).input_ids]


def missed_bos(tok, template, prompt, token_id):  # never adds the BOS a template leaves to the tokenizer
    before, after = tok.apply_chat_template(_messages(prompt, "@@"), chat_template=template, tokenize=False).split("@@")
    return [*tok(before, add_special_tokens=False).input_ids, token_id, *tok(after, add_special_tokens=False).input_ids]


def no_template(tok, template, prompt, token_id):
    return [tok.bos_token_id, token_id] if tok.bos_token_id is not None else [token_id]


def re_encoded(tok, template, prompt, token_id):  # paper mode: the id decoded to text, the whole string encoded
    text = tok.apply_chat_template(_messages(prompt, tok.decode([token_id])), chat_template=template, tokenize=False)
    return tok(text, add_special_tokens=False).input_ids


def no_suffix(tok, template, prompt, token_id):
    return missed_bos(tok, template, prompt, token_id)[:-len(tok(tok.apply_chat_template(
        _messages(prompt, "@@"), chat_template=template, tokenize=False).split("@@")[1],
        add_special_tokens=False).input_ids)]


@pytest.mark.parametrize("wrong, hint", [(doubled_bos, "two BOS"), (missed_bos, "BOS is missing"),
                                         (no_template, "without the chat template"), (re_encoded, "paper mode"),
                                         (no_suffix, "end is missing")])
def test_answer_ids_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("method.answer_ids", wrong)

