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
