"""Checks of the implicit-vs-explicit chapter's exercise: DPO's implicit reward β·(log πθ(y|x) − log πref(y|x)) of a
chosen and a rejected completion, from per-token log-probs, and the pair's margin."""
from __future__ import annotations

import numpy as np

from rmbook.course.exercises import close, exercise, expect

# Planted pairs: per-token log-probs of the chosen and rejected completions (of different lengths) under the policy
# and the reference, and β. Each case's margin has a known sign; the last one's chosen completion became *less*
# likely than under the reference while the margin still grew (likelihood displacement).
DPO_CASES = {
    "a short pair, β = 0.1": dict(policy_chosen=[-1.2, -0.4, -2.0], ref_chosen=[-1.5, -0.9, -2.1],
                                  policy_rejected=[-0.8, -3.0, -1.1, -0.6], ref_rejected=[-0.7, -2.2, -1.0, -0.5],
                                  beta=0.1),
    "a longer pair, β = 0.5": dict(policy_chosen=[-0.3, -1.1, -0.2, -0.9, -1.6],
                                   ref_chosen=[-0.5, -1.0, -0.4, -1.3, -1.7],
                                   policy_rejected=[-2.5, -0.7], ref_rejected=[-2.0, -0.6], beta=0.5),
    "a wrong ranking, β = 0.2": dict(policy_chosen=[-2.0, -2.5], ref_chosen=[-1.0, -1.5],
                                     policy_rejected=[-0.2, -0.4, -0.3], ref_rejected=[-0.9, -1.1, -0.8], beta=0.2),
    "likelihood displacement, β = 0.1": dict(policy_chosen=[-1.4, -1.9, -0.8], ref_chosen=[-1.2, -1.7, -0.7],
                                             policy_rejected=[-3.2, -2.9, -2.4], ref_rejected=[-1.8, -1.5, -1.3],
                                             beta=0.1),
}


def _reference(c: dict, combine=np.sum) -> tuple[float, float, float]:
    """(reward of chosen, reward of rejected, margin), the per-token log-probs combined by ``combine``."""
    rc = c["beta"] * (combine(c["policy_chosen"]) - combine(c["ref_chosen"]))
    rr = c["beta"] * (combine(c["policy_rejected"]) - combine(c["ref_rejected"]))
    return float(rc), float(rr), float(rc - rr)


def _hint(got: np.ndarray, want: np.ndarray, c: dict) -> str:
    beta = c["beta"]
    if close(got, want / beta):
        return " β is missing: the implicit reward is β times the log-ratio."
    if close(got, -want):
        return " The policy and the reference are swapped: the reward is β·(log πθ − log πref)."
    if close(got, np.array(_reference(c, np.mean))):
        return (" You averaged the per-token log-probs: log π(y|x) of a completion is their *sum* (the product of "
                "the tokens' probabilities), as DPO scores it.")
    if close(got[:2], want[:2]) and close(got[2], -want[2]):
        return " The margin is reversed: it is reward(chosen) − reward(rejected), positive when the pair is right."
    if close(got[:2], want[:2]):
        return " The two rewards are right; the margin is reward(chosen) − reward(rejected)."
    return ""


@exercise("implicit_vs_explicit.dpo_reward")
def check_dpo_reward(dpo_rewards) -> int:
    """``dpo_rewards(policy_chosen, ref_chosen, policy_rejected, ref_rejected, beta)`` must return (r_chosen,
    r_rejected, margin) with r = β·(Σ log πθ − Σ log πref) over the completion's tokens."""
    for name, c in DPO_CASES.items():
        want = np.array(_reference(c))
        got = dpo_rewards(*(np.array(c[k]) for k in ("policy_chosen", "ref_chosen", "policy_rejected",
                                                      "ref_rejected")), c["beta"])
        try:
            parts = [np.asarray(g, dtype=float) for g in got]
        except TypeError:
            parts = None
        expect(parts is not None and len(parts) == 3,
               f"return three numbers, (reward of chosen, reward of rejected, margin), got {got!r}")
        if any(p.size != 1 for p in parts):
            expect(False, f"each of the three must be one number, got shapes {[p.shape for p in parts]}: sum the "
                          "per-token log-probs of a completion (log π(y|x) is their sum) before taking the "
                          "difference.")
        got = np.array([float(p) for p in parts])
        if close(got, want):
            continue
        expect(False, f"(chosen, rejected, margin) = {np.round(got, 4).tolist()} on {name}; the implicit rewards "
                      f"give {np.round(want, 4).tolist()}.{_hint(got, want, c)}")
    return len(DPO_CASES)
