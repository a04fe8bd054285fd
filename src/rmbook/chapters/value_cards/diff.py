"""What changed between two value cards of the same kind (:func:`diff_cards`): each gap and foundation rank judged by
a paired bootstrap over the prompts and words both cards share, with its minimum detectable change and, where
cards of other seeds of the same training run are given (or the two cards are two seeds of one run), the seed floor
below which no change is called real; and what changed besides the numbers (:func:`what_changed`)."""
from __future__ import annotations

import re

import pandas as pd

from rmbook.analysis.value_card import GREATEST_PROMPT, ValueCard
from rmbook.chapters.value_cards.measures import WORDS
from rmlib.stats.resampling import MDC_Z, paired_difference

__all__ = ["diff_cards", "what_changed", "same_run_seeds", "COLUMNS", "MDC_TEXT"]

COLUMNS = ["measure", "a", "b", "change", "ci_low", "ci_high", "mdc", "floor", "outside_noise", "noise"]


def same_run_seeds(a: str, b: str) -> bool:
    """Whether two model ids are two seeds of one training run: rmlib's run names differ only in ``-s<N>``."""
    def stem(m: str) -> str:
        return re.sub(r"-s\d+(?=-|$)", "-s*", m)
    return a != b and "-s*" in stem(a) and stem(a) == stem(b)


def what_changed(a: ValueCard, b: ValueCard) -> list[str]:
    """What differs between the two cards besides their numbers: the reward kind (an LM's log-prob and an RM's score
    are not the same quantity), dtype, revision or weights, score reader, head, prompts, rmlib version."""
    notes = []
    if a.reward_kind != b.reward_kind:
        notes.append(f"reward kind: {a.reward_kind} → {b.reward_kind} (ranks compare across kinds; raw rewards would "
                     "not)")
    pa, pb = a.provenance, b.provenance
    if pa is not None and pb is not None:
        for field, name in (("dtype", "dtype"), ("revision", "revision"), ("weights", "weights"),
                            ("reader", "score reader"), ("head", "head"), ("device", "device")):
            x, y = getattr(pa, field), getattr(pb, field)
            if x != y:
                notes.append(f"{name}: {x} → {y}")
    elif pa is None or pb is None:
        notes.append("provenance: one card records none (made before rmlib recorded it)")
    if a.prompts != b.prompts:
        notes.append(f"prompts: {len(a.prompts)} → {len(b.prompts)}")
    if a.rmlib_version != b.rmlib_version:
        notes.append(f"rmlib: {a.rmlib_version} → {b.rmlib_version}")
    return notes


def _floor(cards: list[ValueCard], value) -> float | None:
    """The largest change of one number between any two cards of the same run's seeds (None: fewer than two)."""
    values = [value(c) for c in cards]
    return None if len(values) < 2 else max(values) - min(values)


def _judged(name, va, vb, draws, floor, noisy: str | None) -> dict:
    """One diff row of a number with paired draws: outside the noise when the paired interval of the change
    excludes zero and the change exceeds the seed floor, unless ``noisy`` (a card indistinguishable from its null)."""
    paired = paired_difference(*draws)
    change = vb - va
    outside = paired["ci_low"] > 0 or paired["ci_high"] < 0
    if floor is not None:
        outside = outside and abs(change) > floor
    return {"measure": name, "a": va, "b": vb, "change": change, "ci_low": paired["ci_low"],
            "ci_high": paired["ci_high"], "mdc": paired["mdc"], "floor": floor,
            "outside_noise": bool(outside) and noisy is None, "noise": noisy}


def _check_paired(a: ValueCard, b: ValueCard) -> None:
    if (a.kind, a.prompts) != (b.kind, b.prompts):
        raise ValueError(f"the cards measure different things ({a.kind} card on {a.prompts} vs {b.kind} card on "
                         f"{b.prompts}): compare cards of the same kind")
    draws = {len(g.draws) for c in (a, b) for g in c.gaps}
    seeds = {(c.provenance.seed, c.provenance.n_resamples) if c.provenance else None for c in (a, b)}
    if len(draws) != 1 or 0 in draws or len(seeds) != 1 or a.n_words != b.n_words:
        raise ValueError("the cards' bootstrap draws do not pair (made with different --seed or --resamples, or "
                         "words): remake them with the same ones")


def diff_cards(a: ValueCard, b: ValueCard, seeds: list[ValueCard] | None = None) -> pd.DataFrame:
    """What changed from card ``a`` to card ``b`` (two revisions, two checkpoints, a base LM and its trained RM).

    One row per measure (:data:`COLUMNS`). Each gap and foundation rank has a paired bootstrap over the prompts and
    words both cards share (the same draws: both cards made with one seed and number of resamples): the interval of
    the change, its minimum detectable change (``mdc``: :data:`rmlib.stats.resampling.MDC_Z` standard errors) and,
    where ``seeds`` gives cards of other seeds of the same training run as ``a`` (or ``a`` and ``b`` are two seeds of
    one run), the seed floor: the largest change of the number between those seeds. A change is outside the noise
    when its interval excludes zero and it exceeds the floor, and never when either card is indistinguishable from its
    null (``noise`` says so). Ranks among the paper RMs, word ranks, slopes, ρ, the identity excess and τ are listed
    without a verdict. Cards of different kinds or prompts are refused.
    """
    _check_paired(a, b)
    group = [a, *(seeds or [])] + ([b] if same_run_seeds(a.model, b.model) else [])
    noisy = next((f"{c.label} is indistinguishable from its null" for c in (a, b)
                  if c.null is not None and c.null.indistinguishable), None)
    rows = []
    for ga, gb in zip(sorted(a.gaps, key=lambda g: g.valence), sorted(b.gaps, key=lambda g: g.valence)):
        floor = _floor(group, lambda c, v=ga.valence: next(g.gap for g in c.gaps if g.valence == v))
        rows.append(_judged(f"agency − communion gap, {ga.valence} prompts", ga.gap, gb.gap, (ga.draws, gb.draws),
                            floor, noisy))
    for pa, pb in zip(sorted(a.placements, key=lambda p: p.valence), sorted(b.placements, key=lambda p: p.valence)):
        rows.append({"measure": f"rank among the paper RMs, {pa.valence} prompts", "a": pa.rank, "b": pb.rank,
                     "change": pb.rank - pa.rank})
    ranks_a = {w.word: w.rank for w in a.words if w.model == a.model}
    ranks_b = {w.word: w.rank for w in b.words if w.model == b.model}
    for word in WORDS:
        rows.append({"measure": f"rank of {word!r} under {GREATEST_PROMPT}", "a": ranks_a.get(word),
                     "b": ranks_b.get(word), "change": ranks_b.get(word) - ranks_a.get(word)})
    key = lambda f: (f.foundation, f.valence)  # noqa: E731
    for fa, fb in zip(sorted(a.foundations, key=key), sorted(b.foundations, key=key)):
        floor = _floor(group, lambda c, k=key(fa): next(f.median_rank for f in c.foundations if key(f) == k))
        rows.append(_judged(f"median rank of {fa.foundation}, {fa.valence} prompts", fa.median_rank, fb.median_rank,
                            (fa.draws, fb.draws), floor, noisy))
    rows += _unjudged(a, b)
    return pd.DataFrame(rows).reindex(columns=COLUMNS)


def _unjudged(a: ValueCard, b: ValueCard) -> list[dict]:
    """The numbers listed without a verdict: the slopes, ρ, the identity excess and τ."""
    rows = []
    for name, label in (("framing", "framing, {}"), ("exposure", "frequency slope, {} prompts")):
        other = {f.measure: f.estimate for f in getattr(b, name)}
        for f in sorted(getattr(a, name), key=lambda f: f.measure):
            rows.append({"measure": label.format(f.measure), "a": f.estimate, "b": other[f.measure],
                         "change": other[f.measure] - f.estimate})
    if a.elo is not None and b.elo is not None:
        rows.append({"measure": "Spearman ρ with the human EloEverything ratings", "a": a.elo.rho, "b": b.elo.rho,
                     "change": b.elo.rho - a.elo.rho})
    if a.identity is not None and b.identity is not None:
        rows.append({"measure": "mean excess of the items that name groups of people", "a": a.identity.excess,
                     "b": b.identity.excess, "change": b.identity.excess - a.identity.excess})
    tau_b = {t.reference: t.tau for t in b.agreement}
    for t in sorted(a.agreement, key=lambda t: t.reference):
        rows.append({"measure": f"Kendall τ with {t.reference}", "a": t.tau, "b": tau_b[t.reference],
                     "change": tau_b[t.reference] - t.tau})
    return rows


MDC_TEXT = f"the minimum detectable change: {MDC_Z:.2f} standard errors of the paired change (5% test, 80% power)"
