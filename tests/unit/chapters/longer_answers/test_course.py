"""The longer-answers exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers,
with a message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("ex", ["longer_answers.one_hot_gradient", "longer_answers.gcg_step"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 4


def _grad(reward, ids, v, at=None, sign=1.0, dtype=torch.float64):
    x = torch.nn.functional.one_hot(torch.as_tensor(ids), v).to(dtype) if at is None else at(len(ids), v)
    x.requires_grad_(True)
    (g,) = torch.autograd.grad(sign * reward(x), x)
    return g


def integer_one_hot(reward, ids, v):
    x = torch.nn.functional.one_hot(torch.as_tensor(ids), v)
    (g,) = torch.autograd.grad(reward(x), x)
    return g


@pytest.mark.parametrize("wrong, hint", [
    (lambda f, ids, v: _grad(f, ids, v, sign=-1.0), "gradient of −reward"),
    (lambda f, ids, v: _grad(f, ids, v, at=lambda n, v: torch.zeros(n, v, dtype=torch.float64)), "all-zero matrix"),
    (lambda f, ids, v: _grad(f, ids, v).T, r"\[vocabulary, positions\]"),
    (lambda f, ids, v: _grad(f, ids, v)[torch.arange(len(ids)), torch.as_tensor(ids)], "every"),
    (integer_one_hot, "float tensor that requires grad"),
])
def test_one_hot_gradient_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("longer_answers.one_hot_gradient", wrong)


def _top(grad, direction, allowed, k, sign=None, mask=True, axis=1):
    s = (1.0 if direction == "max" else -1.0) if sign is None else sign
    g = s * np.asarray(grad, dtype=float)
    if mask:
        g = np.where(np.asarray(allowed)[None], g, -np.inf)
    return np.argsort(-g, axis=axis)[:, :k] if axis == 1 else np.argsort(-g, axis=0)[:k]


@pytest.mark.parametrize("wrong, hint", [
    (lambda g, d, a, k: _top(g, d, a, k, sign=1.0), "sign is not flipped"),          # the fork's bug
    (lambda g, d, a, k: _top(g, d, a, k, sign=-1.0), "Maximising, rank by"),       # −gradient as in a loss
    (lambda g, d, a, k: _top(g, d, a, k, mask=False), "not allowed"),
    (lambda g, d, a, k: _top(g, d, a, k, axis=0), "not over the positions"),
    (lambda g, d, a, k: np.sort(np.where(a[None], g, -np.inf), axis=1)[:, ::-1][:, :k], "not gradient values"),
])
def test_gcg_step_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("longer_answers.gcg_step", wrong)
