"""The reward-lens lab's checks pass on the chapter's reference solutions and fail on planted wrong answers, with a
message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution


def test_the_reference_solutions_pass():
    assert course.check("reward_lens.block_attribution", reference_solution("reward_lens.block_attribution")).cases == 3
    assert course.check("reward_lens.patching_shares", reference_solution("reward_lens.patching_shares")).cases == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda b, r, g, h, eps: float(h @ (g * b) / np.sqrt(np.mean(b ** 2) + eps)), "own size"),
    (lambda b, r, g, h, eps: float(h @ b / np.sqrt(np.mean(r ** 2) + eps)), "gain"),
    (lambda b, r, g, h, eps: float(h @ (g * b) / np.sqrt(np.mean(r ** 2))), "eps"),
    (lambda b, r, g, h, eps: np.asarray(h * g * b / np.sqrt(np.mean(r ** 2) + eps)), "one number"),
])
def test_a_wrong_attribution_is_told_what_is_wrong(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("reward_lens.block_attribution", wrong)


@pytest.mark.parametrize("wrong, hint", [
    (lambda p, corrupt, clean: {b: r - corrupt for b, r in p.items()}, "Divide by the gap"),
    (lambda p, corrupt, clean: {b: (corrupt - r) / (clean - corrupt) for b, r in p.items()}, "patched − corrupt"),
    (lambda p, corrupt, clean: {b: r / clean for b, r in p.items()}, "not of the clean reward"),
    (lambda p, corrupt, clean: [1.0], "one share per block"),
])
def test_a_wrong_share_is_told_what_is_wrong(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("reward_lens.patching_shares", wrong)
