"""Checks of the implicit_rewards chapter's exercises: an answer's summed log-probability from an LM's logits (the
score every implicit reward is built from), and the mixture-weighted log ratio (MWLR) of two LMs.

The planted logits are seeded random arrays whose right answers come from :func:`scipy.special.log_softmax` and the
definitions; the common wrong answers are computed alongside, so a hint can say which one a student wrote.
"""
from __future__ import annotations

import numpy as np
from scipy.special import log_softmax, softmax

from rmbook.course.exercises import close, exercise, expect


def _planted_logits():
    """(name, logits (T, V), ids (T,), n_prompt) cases: small and large vocabularies, a one-token answer, and logits
    offset by +1000 (log-softmax ignores a constant per position; exp(1000) overflows)."""
    rng = np.random.default_rng(7)
    out = []
    for name, t, v, p, scale, offset in (("a 3-token answer after a 5-token prompt, 11 tokens in the vocabulary",
                                          8, 11, 5, 3.0, 0.0),
                                         ("a 1-token answer after a 6-token prompt", 7, 50, 6, 4.0, 0.0),
                                         ("a 4-token answer, vocabulary 320", 10, 320, 6, 2.0, 0.0),
                                         ("logits shifted by +1000 (a constant per row changes no log-probability)",
                                          9, 40, 4, 3.0, 1000.0)):
        logits = rng.normal(scale=scale, size=(t, v)) + offset
        out.append((name, logits, rng.integers(0, v, size=t), p))
    return out


def _answer_logprob(logits, ids, p, rows=None, tokens=None):
    """Σ log-softmax(logits[rows])[ids[tokens]]; by default rows t−1 for the answer tokens t = p, ..., T−1."""
    tokens = np.arange(p, len(ids)) if tokens is None else tokens
    rows = tokens - 1 if rows is None else rows
    return float(log_softmax(logits, axis=-1)[rows, ids[tokens]].sum())


def _wrong_answers(logits, ids, p) -> dict[str, float]:
    """The usual mistakes' values on one case, each with the hint that names it."""
    T = len(ids)
    ans = np.arange(p, T)
    lp = log_softmax(logits, axis=-1)
    with np.errstate(all="ignore"):
        naive = np.log(np.exp(logits) / np.exp(logits).sum(-1, keepdims=True))
    return {
        "off by one: the logits at position t predict token t + 1, so token t is scored by the row t − 1 "
        "(logits[t − 1, ids[t]]), not by logits[t]": _answer_logprob(logits, ids, p, rows=np.minimum(ans, T - 1)),
        "that skips the first answer token: the last prompt position, logits[n_prompt − 1], predicts it":
            _answer_logprob(logits, ids, p, tokens=np.arange(p + 1, T)),
        "that also sums the prompt's tokens: only the answer's tokens ids[n_prompt:] count, each given what comes "
        "before it": _answer_logprob(logits, ids, p, tokens=np.arange(1, T)),
        "that sums raw logits: normalise each position first (log-softmax: logit − log Σ exp logits)":
            float(logits[ans - 1, ids[ans]].sum()),
        "that is the answer's probability: return its log-probability": float(np.exp(lp[ans - 1, ids[ans]]).prod()),
        "that sums probabilities: sum the log-probabilities (log of a product is the sum of logs)":
            float(softmax(logits, -1)[ans - 1, ids[ans]].sum()),
        "that is the mean over the answer's tokens: the log-probability of the whole answer is their sum":
            float(lp[ans - 1, ids[ans]].mean()),
        "exp overflowed on these large logits (log of softmax): subtract each row's maximum before exp, or use "
        "scipy.special.log_softmax / torch.log_softmax": float(naive[ans - 1, ids[ans]].sum()),
        "the sign is flipped: a log-probability is ≤ 0": -_answer_logprob(logits, ids, p),
    }


@exercise("implicit_rewards.answer_logprob")
def check_answer_logprob(answer_logprob) -> int:
    """``answer_logprob(logits, ids, n_prompt)``: Σ over the answer tokens t ≥ n_prompt of log-softmax(logits[t−1])
    [ids[t]], on seeded random logits (several sizes, a one-token answer, logits near +1000)."""
    cases = _planted_logits()
    for name, logits, ids, p in cases:
        want = _answer_logprob(logits, ids, p)
        got = answer_logprob(logits.copy(), ids.copy(), p)
        if close(got, want, atol=1e-6, rtol=1e-6):
            continue
        try:
            finite = bool(np.isfinite(np.asarray(got, dtype=float)).all())
        except (TypeError, ValueError):
            finite = True
        hint = ""
        for mistake, value in _wrong_answers(logits, ids, p).items():
            if (close(got, value) if np.isfinite(value) else not finite):
                hint = f" {mistake[0].upper()}{mistake[1:]}."
                break
        try:
            shown = f"{float(np.asarray(got, float)):.4f}"
        except (TypeError, ValueError):
            expect(False, f"return one number (the summed log-probability), not {type(got).__name__} {got!r:.80}")
        expect(False, f"On {name} (n_prompt={p}, answer ids {ids[p:].tolist()}), you give {shown}; the answer's "
                      f"log-probability is {want:.4f}.{hint}")
    return len(cases)


def _mwlr(a, b):
    return 0.5 * (np.exp(a) + np.exp(b)) * (a - b)


# planted summed log-probs of 7 words under two LMs: equal, one model sure, both unlikely, one model sure of a rare word
LOGP_1 = np.array([-2.0, -0.1, -30.0, -5.0, -0.7, -12.0, -3.0])
LOGP_2 = np.array([-2.0, -3.0, -31.0, -0.2, -0.9, -1.5, -8.0])


@exercise("implicit_rewards.mwlr")
def check_mwlr(mwlr) -> int:
    """``mwlr(logp_1, logp_2)``: ½(p₁ + p₂)(log p₁ − log p₂) per word, on planted summed log-probs (arrays),
    and antisymmetric (swapping the models flips the sign)."""
    a, b = LOGP_1.copy(), LOGP_2.copy()
    want = _mwlr(a, b)
    got = mwlr(a.copy(), b.copy())
    try:
        got_a = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        got_a = None
    expect(got_a is not None and got_a.shape == want.shape,
           f"return one value per word: an array of shape {want.shape} for arrays of {len(a)} log-probs, got "
           f"{got!r:.80}")
    if not close(got_a, want):
        wrong = {"the sign is flipped: MWLR is positive when model 1 gives the word more probability "
                 "(log p₁ − log p₂)": -want,
                 "that is the plain log ratio log p₁ − log p₂ (DPO's implicit reward with β = 1): MWLR weights "
                 "it by the mixture probability ½(p₁ + p₂)": a - b,
                 "the weight uses log-probabilities: it is the mixture of the probabilities ½(exp log p₁ + exp log "
                 "p₂)": 0.5 * (a + b) * (a - b),
                 "the ½ is missing: the weight is the mixture's probability, the mean of p₁ and p₂": 2 * want,
                 "the weight is p₁ · p₂: it is their mean ½(p₁ + p₂)": np.exp(a) * np.exp(b) * (a - b),
                 "that divides the probabilities (p₁ / p₂); MWLR multiplies the log ratio by ½(p₁ + p₂)":
                     0.5 * (np.exp(a) + np.exp(b)) * np.exp(a - b)}
        hint = next((f" {m[0].upper()}{m[1:]}." for m, v in wrong.items() if close(got_a, v)), "")
        k = int(np.argmax(~np.isclose(got_a, want)))
        expect(False, f"for log p₁ = {a[k]}, log p₂ = {b[k]} you give {got_a[k]:.5f}; the MWLR is {want[k]:.5f}."
                      + hint)
    back = np.asarray(mwlr(b.copy(), a.copy()), dtype=float)
    expect(close(back, -want), "swapping the two models must flip the sign (MWLR(b, a) = −MWLR(a, b))")
    one = mwlr(np.array([-1.0]), np.array([-1.0]))
    expect(close(one, [0.0]), "a word both models give the same log-probability has MWLR 0")
    return 3
