"""Checks of the longer-answers chapter's exercises: the gradient of a reward with respect to the one-hot response,
and one GCG proposal step (the top-k replacement tokens per position, in the search's direction).

Torch is imported inside the checks that need it: ``rmbook.course`` imports without torch."""
from __future__ import annotations

import numpy as np

from rmbook.course.exercises import CheckFailed, close, exercise, expect

# ----------------------------------------------------------------- the gradient through a one-hot

V, D = 7, 3  # a planted vocabulary of 7 tokens with 3-dimensional embeddings
_rng = np.random.default_rng(27)
EMBED = _rng.normal(size=(V, D))
W_POS = _rng.normal(size=(3, D))            # the linear reward's weight per position
U, C = _rng.normal(size=D), np.array([1.0, -0.7, 0.4])
SCALE = 1.5                                 # an embedding scale, as Gemma multiplies by √d

GRAD_CASES = {"a linear reward at ids [2, 5, 0]": ("linear", [2, 5, 0]),
              "a linear reward at ids [6, 6, 1]": ("linear", [6, 6, 1]),
              "a non-linear reward at ids [1, 3, 4]": ("nonlinear", [1, 3, 4]),
              "a non-linear reward at ids [4, 0, 6]": ("nonlinear", [4, 0, 6])}


def _reward(kind: str):
    """The planted reward as a torch function of the [3, V] one-hot: embeddings x = SCALE · one_hot @ E, then a
    linear read-out per position, or c_p·tanh(x_p·u) plus an interaction x_0·x_1 of the first two positions."""
    import torch

    E, W, u, c = (torch.tensor(a, dtype=torch.float64) for a in (EMBED, W_POS, U, C))

    def reward(one_hot):
        x = SCALE * (one_hot.to(torch.float64) @ E)
        if kind == "linear":
            return (x * W).sum()
        return (c * torch.tanh(x @ u)).sum() + x[0] @ x[1]
    return reward


def _closed_form(kind: str, one_hot: np.ndarray) -> np.ndarray:
    """d reward / d one_hot = SCALE · (d reward / d x) @ Eᵀ, with d reward / d x written out."""
    x = SCALE * one_hot @ EMBED
    if kind == "linear":
        dx = W_POS
    else:
        dx = (C * (1 - np.tanh(x @ U) ** 2))[:, None] * U[None]
        dx[0] += x[1]
        dx[1] += x[0]
    return SCALE * dx @ EMBED.T


def _numpy(got):
    if hasattr(got, "detach"):
        got = got.detach().cpu().numpy()
    return got


@exercise("longer_answers.one_hot_gradient")
def check_one_hot_gradient(one_hot_gradient) -> int:
    """``one_hot_gradient(reward_of_one_hot, ids, vocab_size)``: d reward / d one-hot at the one-hot of ``ids``, a
    [len(ids), vocab_size] array, against the closed form of planted linear and non-linear rewards."""
    for name, (kind, ids) in GRAD_CASES.items():
        at = np.eye(V)[ids]
        want = _closed_form(kind, at)
        try:
            got = _numpy(one_hot_gradient(_reward(kind), list(ids), V))
        except RuntimeError as e:
            if "floating point" in str(e) or "does not require grad" in str(e) or "not have been used" in str(e):
                raise CheckFailed(f"torch refused the gradient on {name} ({e}). Build the one-hot as a float tensor "
                                  "that requires grad (torch.nn.functional.one_hot(...).double()"
                                  ".requires_grad_()), pass that very tensor to the reward, and take "
                                  "torch.autograd.grad of the result with respect to it.") from None
            raise
        shape = np.shape(got)
        expect(shape != (V, len(ids)), f"the gradient is [vocabulary, positions] {shape} on {name}: return one row "
                                       f"per position and one column per token, shape ({len(ids)}, {V})")
        expect(shape == want.shape, f"the gradient has shape {shape} on {name}; it must have one row per position "
                                    f"and one column per vocabulary token, shape {want.shape}: the gradient at "
                                    "*every* token, not only at the current ones, is what ranks replacements")
        got = np.asarray(got, dtype=float)
        if close(got, want, atol=1e-6, rtol=1e-4):
            continue
        hint = ""
        if close(got, -want, rtol=1e-4):
            hint = (" That is the gradient of −reward (a loss): take the gradient of the reward itself; the search "
                    "multiplies by the direction's sign.")
        elif close(got, _closed_form(kind, 0 * at), rtol=1e-4):
            hint = (" That is the gradient at an all-zero matrix: evaluate it at the one-hot of `ids` (the "
                    "response GCG stands on).")
        expect(False, f"the gradient differs from the closed form on {name} (largest difference "
                      f"{np.abs(got - want).max():.3g}).{hint}")
    return len(GRAD_CASES)


# ----------------------------------------------------------------- top-k candidates, in the search's direction

def _planted_gradient(seed: int, length: int, vocab: int, banned: list[int]) -> np.ndarray:
    """Distinct gradient values, with the banned (special-token) ids at both extremes of some rows, so that
    forgetting the mask shows in either direction."""
    rng = np.random.default_rng(seed)
    g = rng.permutation(length * vocab).reshape(length, vocab) / (length * vocab) - 0.5
    g[0, banned[0]], g[-1, banned[-1]] = 2.0, -2.0
    return g


TOPK_CASES = {"maximise, 3 positions": (0, 3, 20, "max", 4), "minimise, 3 positions": (1, 3, 20, "min", 4),
              "minimise, 5 positions": (2, 5, 30, "min", 6), "maximise, 2 positions": (3, 2, 30, "max", 3)}
BANNED = [0, 7]  # e.g. BOS and an end-of-turn token: never proposed


def _top(g: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    g = np.where(mask[None], g, -np.inf)
    return np.argsort(-g, axis=1, kind="stable")[:, :k]


def _same_rows(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and all(set(x) == set(y) for x, y in zip(a.tolist(), b.tolist()))


@exercise("longer_answers.gcg_step")
def check_gcg_step(top_candidates) -> int:
    """``top_candidates(grad, direction, allowed, k)``: per position the k allowed ids with the largest
    sign · gradient (sign +1 for 'max', −1 for 'min'), against a sort of the planted gradients."""
    for name, (seed, length, vocab, direction, k) in TOPK_CASES.items():
        g = _planted_gradient(seed, length, vocab, BANNED)
        mask = np.ones(vocab, dtype=bool)
        mask[BANNED] = False
        sign = 1.0 if direction == "max" else -1.0
        want = _top(sign * g, mask, k)
        got = _numpy(top_candidates(g.copy(), direction, mask.copy(), k))
        shape = np.shape(got)
        expect(not (len(shape) == 2 and shape[1] == vocab),
               f"{name}: the result has shape {shape}, a column per vocabulary token: take the top k over the "
               f"vocabulary (axis 1), not over the positions, and keep {k} ids per position: shape ({length}, {k})")
        expect(shape == want.shape, f"{name}: return {k} token ids per position, shape ({length}, {k}); got shape "
                                    f"{shape}")
        got = np.asarray(got)
        expect(np.issubdtype(got.dtype, np.integer) or np.array_equal(got, np.round(got)),
               f"{name}: return token ids (the indices of the top-k entries), not gradient values")
        got = got.astype(int)
        if _same_rows(got, want):
            continue
        bad = sorted(set(got.ravel().tolist()) & set(BANNED))
        expect(not bad, f"{name}: ids {bad} are not allowed (special or chat-control tokens): set their gradient "
                        "to −∞ (or drop them) before taking the top k")
        if _same_rows(got, _top(-sign * g, mask, k)):
            if direction == "min":
                expect(False, f"{name}: these are the tokens that would *raise* the reward. Minimising, the "
                              "objective is −reward: rank by −gradient (the sign is not flipped for the pessimal "
                              "search; the authors' fork had this very bug).")
            expect(False, f"{name}: these are the tokens that would *lower* the reward. Maximising, rank by "
                          "+gradient: the largest entries are the replacements expected to raise the objective "
                          "(Zou et al. minimise a loss, hence their −gradient).")
        expect(False, f"{name}: your top-{k} ids per position are {got.tolist()}; the allowed ids with the largest "
                      f"sign·gradient are {want.tolist()} (sign {sign:+.0f} for '{direction}')")
    return len(TOPK_CASES)
