"""What changed between two value cards of the same kind, each change of a gap or a foundation's rank judged against
the noise its prompts give (:func:`diff_cards`)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.value_cards.measures import GREATEST_PROMPT, WORDS
from rmbook.chapters.value_cards.record import ValueCard

__all__ = ["diff_cards"]


def _noisy_rows(pairs, name, value, spread) -> list[dict]:
    """One diff row per measured pair: the change, and whether it is larger than the noise (the largest spread
    between the prompts' own values on either card)."""
    rows = []
    for a, b in pairs:
        noise = max(max(v.values()) - min(v.values()) for v in (spread(a), spread(b)))
        change = value(b) - value(a)
        rows.append({"measure": name(a), "a": value(a), "b": value(b), "change": change, "noise": noise,
                     "outside_noise": bool(abs(change) > noise)})
    return rows


def _paired(a: list, b: list, key) -> list[tuple]:
    return list(zip(sorted(a, key=key), sorted(b, key=key)))


def diff_cards(a: ValueCard, b: ValueCard) -> pd.DataFrame:
    """What changed from card ``a`` to card ``b`` (two revisions, two checkpoints, a base LM and its trained RM).

    One row per measure: a, b, change (b − a) and, for each gap and foundation rank, whether the change is outside
    the noise. The rule: the noise of a valence's number is the largest spread between its prompts' own values on
    either card (what moving from one prompt to another does to it), and a change is outside the noise when it is
    larger. Ranks among the paper RMs, word ranks (one prompt), the framing halves, the frequency slopes, ρ, the
    identity excess and τ have no noise estimate (``outside_noise`` None). Cards of different kinds or prompts are
    refused: their numbers do not measure the same thing.
    """
    if (a.kind, a.prompts) != (b.kind, b.prompts):
        raise ValueError(f"the cards measure different things ({a.kind} card on {a.prompts} vs {b.kind} card on "
                         f"{b.prompts}): compare cards of the same kind")
    rows = _noisy_rows(_paired(a.gaps, b.gaps, lambda g: g.valence),
                       lambda g: f"agency − communion gap, {g.valence} prompts", lambda g: g.gap,
                       lambda g: g.prompt_gaps)
    for pa, pb in _paired(a.placements, b.placements, lambda p: p.valence):
        rows.append({"measure": f"rank among the paper RMs, {pa.valence} prompts", "a": pa.rank, "b": pb.rank,
                     "change": pb.rank - pa.rank, "noise": None, "outside_noise": None})
    ranks_a = {w.word: w.rank for w in a.words if w.model == a.model}
    ranks_b = {w.word: w.rank for w in b.words if w.model == b.model}
    for word in WORDS:
        rows.append({"measure": f"rank of {word!r} under {GREATEST_PROMPT}", "a": ranks_a.get(word),
                     "b": ranks_b.get(word), "change": ranks_b.get(word) - ranks_a.get(word), "noise": None,
                     "outside_noise": None})
    rows += _noisy_rows(_paired(a.foundations, b.foundations, lambda f: (f.foundation, f.valence)),
                        lambda f: f"median rank of {f.foundation}, {f.valence} prompts", lambda f: f.median_rank,
                        lambda f: f.prompt_values)
    for name, label in (("framing", "framing, {}"), ("exposure", "frequency slope, {} prompts")):
        other = {f.measure: f.estimate for f in getattr(b, name)}
        for f in sorted(getattr(a, name), key=lambda f: f.measure):
            rows.append({"measure": label.format(f.measure), "a": f.estimate, "b": other[f.measure],
                         "change": other[f.measure] - f.estimate, "noise": None, "outside_noise": None})
    if a.elo is not None and b.elo is not None:
        rows.append({"measure": "Spearman ρ with the human EloEverything ratings", "a": a.elo.rho, "b": b.elo.rho,
                     "change": b.elo.rho - a.elo.rho, "noise": None, "outside_noise": None})
    if a.identity is not None and b.identity is not None:
        rows.append({"measure": "mean excess of the items that name groups of people", "a": a.identity.excess,
                     "b": b.identity.excess, "change": b.identity.excess - a.identity.excess, "noise": None,
                     "outside_noise": None})
    tau_b = {t.reference: t.tau for t in b.agreement}
    for t in sorted(a.agreement, key=lambda t: t.reference):
        rows.append({"measure": f"Kendall τ with {t.reference}", "a": t.tau, "b": tau_b[t.reference],
                     "change": tau_b[t.reference] - t.tau, "noise": None, "outside_noise": None})
    return pd.DataFrame(rows)
