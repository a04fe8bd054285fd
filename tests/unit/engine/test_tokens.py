"""The tokens= argument (rmlib.engine.tokens): a slice's step honoured, a string or a bad step refused with what to
give instead, a tensor or array of integer ids taken (#24 items 3 and 14)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rmlib.engine import SweepError
from rmlib.engine.tokens import tokens_arg, vocab_ids


def test_a_slices_step_is_honoured():
    assert list(vocab_ids(slice(300, None, 7), 320)) == [300, 307, 314]  # was 300..319
    assert list(vocab_ids(slice(0, 10, 3), 320)) == [0, 3, 6, 9]
    assert list(vocab_ids(slice(310, None), 320)) == list(range(310, 320))
    assert list(vocab_ids(None, 4)) == [0, 1, 2, 3]


@pytest.mark.parametrize("bad, message", [
    ("0:10", r"is a string; in Python give slice\(LO, HI\) or range"),
    (slice(0, 10, 0), "step must be a positive integer"),
    (slice(10, 0, -1), "step must be a positive integer"),
    (slice(0.5, 10), "start must be an integer"),
    (torch.tensor([1.0, 2.0]), "must be integers"),
    (3.5, "not float"),
])
def test_bad_tokens_say_what_to_give(bad, message):
    with pytest.raises(SweepError, match=message):
        tokens_arg(bad)


def test_integer_tensors_and_arrays_are_taken_as_their_ids():
    assert tokens_arg(torch.tensor([4, 2, 9])) == [4, 2, 9]
    assert tokens_arg(np.array([1, 3], dtype=np.int32)) == [1, 3]
    assert tokens_arg(torch.tensor(5)) == [5]
    assert list(vocab_ids(range(2, 5), 10)) == [2, 3, 4]


def test_a_slice_past_the_vocabulary_warns_and_one_beyond_or_below_it_is_refused_by_name():
    """#39 items 7 and 8: `--tokens 0:99999999` was clipped to the whole vocabulary without a word; `400:500` on a
    320-id vocabulary and `-5:10` both said "the vocabulary slice is empty"."""
    import warnings

    from rmlib.engine.tokens import TokensWarning

    with pytest.warns(TokensWarning, match=r"tokens 300:1000000000 run past the vocabulary of 320 ids: sweeping "
                                           r"300:320"):
        assert list(vocab_ids(slice(300, 10 ** 9), 320)) == list(range(300, 320))
    with pytest.raises(SweepError, match=r"tokens 400:500 start beyond the vocabulary, which has 320 ids \(0\.\.319\)"):
        vocab_ids(slice(400, 500), 320)
    with pytest.raises(SweepError, match="cannot be negative"):
        vocab_ids(slice(-5, 10), 320)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(vocab_ids(slice(0, 320), 320)) == list(range(320))  # exactly the vocabulary: no warning


def test_a_huge_token_id_is_out_of_range_not_an_overflow(tiny_rms):
    """#39 item 6: `--tokens 99999999999999999999999` raised numpy's OverflowError."""
    from rmlib.engine.checks import candidate_ids

    with pytest.raises(SweepError, match=r"token ids out of range \[0, \d+\) for tiny-llama: \[99999999999999999999999\]"):
        candidate_ids(tiny_rms["llama"], [99999999999999999999999])


@pytest.mark.parametrize("text, expected", [("10:20", slice(10, 20)), (" 10: ", slice(10, None)), (":5", slice(0, 5)),
                                            ("1, 2,3", [1, 2, 3]), (None, None)])
def test_one_parser_reads_the_text_form_for_the_command_line_and_a_plan(text, expected):
    from rmlib.cli.commands import _token_spec
    from rmlib.engine.plan import load_plan
    from rmlib.engine.tokens import parse_tokens

    assert parse_tokens(text) == expected
    if text is not None:
        assert _token_spec(text) == expected  # the CLI's --tokens
        plan = load_plan({"models": ["tiny-llama"], "prompts": ["greatest"], "tokens": text})
        assert parse_tokens(plan.tokens) == expected  # a plan's tokens: ids included (it took slices only)


@pytest.mark.parametrize("text", ["-5:", "5:2", "abc", ",", "1,2,1"])
def test_the_command_line_refuses_what_a_plan_refuses(text):
    """Before, the CLI had its own parser: ``--tokens -5:`` passed it as slice(-5, None), which a plan refused."""
    import argparse

    from rmlib.cli.commands import _token_spec
    from rmlib.engine.plan import load_plan

    with pytest.raises(argparse.ArgumentTypeError) as cli:
        _token_spec(text)
    with pytest.raises(SweepError) as plan:
        load_plan({"models": ["tiny-llama"], "prompts": ["greatest"], "tokens": text})
    assert str(cli.value) == str(plan.value)
