"""Checks of the finetuning chapter's exercise: the Bradley-Terry loss an explicit RM is trained on and its pairwise
accuracy on held-out pairs (ties count one half, as :func:`rmlib.train.evaluate.pairwise_accuracy` counts them)."""
from __future__ import annotations

import numpy as np

from rmbook.course.exercises import close, exercise, expect

# Rewards of chosen and rejected responses: a tie, a pair ranked the wrong way by a wide margin (exp(800) overflows
# float64, so only a stable log-sigmoid gives a finite loss), and an RM that ranks every pair right.
CASES = {
    "four pairs with a tie": ([1.0, 0.5, -0.2, 2.0], [0.0, 0.5, 0.3, -1.0]),
    "a pair wrong by a wide margin": ([0.0, 3.0, 1.0], [800.0, 1.0, 1.5]),
    "every pair right": ([5.0, 4.0, 3.5, 2.0, 1.0], [1.0, 0.0, 3.0, -2.0, 0.9]),
}


def reference(chosen, rejected) -> tuple[float, float]:
    """(mean −log σ(chosen − rejected), share of pairs with a positive margin, ties counting one half)."""
    m = np.asarray(chosen, float) - np.asarray(rejected, float)
    return float(np.mean(np.logaddexp(0.0, -m))), float(np.mean((m > 0) + 0.5 * (m == 0)))


def _hint(got: tuple[float, float], chosen, rejected) -> str:
    m = np.asarray(chosen, float) - np.asarray(rejected, float)
    loss, acc = reference(chosen, rejected)
    if not np.isfinite(got[0]):
        return ("The loss is not finite: exp of a large negative margin overflows. Write −log σ(m) as "
                "log(1 + e^(−m)) with np.logaddexp(0, −m), which never overflows.")
    if close(got[0], -loss):
        return "The loss has the wrong sign: it is −log σ(margin), which is positive and falls as the margin grows."
    if close(got[0], float(np.mean(np.logaddexp(0.0, m)))) or close(got[1], 1 - acc):
        return "The margin is reversed: it is reward(chosen) − reward(rejected)."
    if close(got[0], float(np.sum(np.logaddexp(0.0, -m)))):
        return "That is the summed loss: the chapter reports the mean over pairs."
    if close(got[1], float(np.mean(m > 0))) or close(got[1], float(np.mean(m >= 0))):
        return "A tie (margin 0) counts one half: the RM neither gets the pair right nor wrong."
    return ""


@exercise("finetuning.bt_loss")
def check_bt_loss(bt_loss_and_accuracy) -> int:
    """``bt_loss_and_accuracy(reward_chosen, reward_rejected)``: (mean −log σ(margin), pairwise accuracy)."""
    for name, (chosen, rejected) in CASES.items():
        want = reference(chosen, rejected)
        got = bt_loss_and_accuracy(np.asarray(chosen, float), np.asarray(rejected, float))
        expect(isinstance(got, (tuple, list)) and len(got) == 2 and all(np.ndim(v) == 0 for v in got),
               f"return two numbers, (loss, accuracy), got {got!r}")
        got = (float(got[0]), float(got[1]))
        if close(got[0], want[0]) and close(got[1], want[1]):
            continue
        expect(False, f"on {name} (chosen {chosen}, rejected {rejected}) you give loss {got[0]:.4f}, accuracy "
                      f"{got[1]:.4f}; they are {want[0]:.4f} and {want[1]:.4f}. "
                      f"{_hint(got, chosen, rejected)}".rstrip())
    return len(CASES)
