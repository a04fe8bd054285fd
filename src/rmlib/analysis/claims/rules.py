"""How a claim gets a verdict: the rules for each part's outcome, their thresholds, and the rule from parts to a
verdict. The thresholds are module constants, printed on the page (:func:`rules_markdown`).

* share rule (:func:`share_outcome`), for claims about most units: a part **holds** when at least ``MOST`` of the
  units show the effect with their 95% interval (or test) on the claimed side, **fails** when fewer than half do and
  at least as many show the opposite, and is **mixed** otherwise (e.g. the right direction everywhere, but clear in
  few units);
* test rule (:func:`test_outcome`): holds when the test's p (FDR-adjusted where the chapter corrects) is below
  ``ALPHA`` *and* the effect has the claimed sign; fails otherwise;
* existence rule (:func:`exists_outcome`), for "can" claims: holds when at least one unit shows the effect with an
  interval that excludes zero;
* order rule (:func:`order_outcome`): holds when the claimed order of two chapter numbers is seen;
* threshold rule (:func:`threshold_outcome`): holds when a chapter number is on the claimed side of a stated
  threshold (e.g. ``TAU_HETEROGENEOUS``).

A part that needs what this book does not have (the RMs' weights on a GPU, a model hub, the paper's training runs)
is **untestable** with the reason. Verdict: every part holds -> **replicates**; every testable part fails ->
**does not**; no testable part -> **not testable here**; anything else -> **partly** (the reason lists the parts).
Parts marked ``context`` are shown but do not enter the verdict (e.g. the same method on stand-in models).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["MOST", "ALPHA", "TAU_HETEROGENEOUS", "MULTIPLE", "VERDICTS", "OUTCOMES", "share_outcome", "test_outcome",
           "exists_outcome", "order_outcome", "threshold_outcome", "Part", "Claim", "verdict", "rules_markdown"]

MOST = 0.75            # share of units that must show the effect for a part to hold
ALPHA = 0.05           # significance level for test-based parts (after the chapter's FDR correction)
TAU_HETEROGENEOUS = 0.6  # median pairwise Kendall tau below this: RMs disagree on >= 20% of item pairs
MULTIPLE = 2           # "multiple dimensions": at least this many panels

VERDICTS = ("replicates", "partly", "does not", "not testable here")
OUTCOMES = ("holds", "mixed", "fails", "untestable")


# --------------------------------------------------------------------------- rules

def share_outcome(k: int, n: int, against: int | None = None) -> str:
    """'holds' if k/n >= MOST; 'fails' if k/n < 1/2 and at least as many units show the opposite (``against``,
    default n - k: every unit is on one side or the other); else 'mixed' (e.g. the right direction everywhere, but
    clear in few units); 'untestable' when n == 0."""
    if n <= 0:
        return "untestable"
    against = n - k if against is None else against
    if k / n >= MOST:
        return "holds"
    return "fails" if (k / n < 0.5 and against >= k) else "mixed"


def test_outcome(p: float | None, right_direction: bool) -> str:
    """'holds' if p < ALPHA and the effect has the claimed sign, else 'fails' ('untestable' when p is missing)."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "untestable"
    return "holds" if (p < ALPHA and right_direction) else "fails"


def exists_outcome(k: int) -> str:
    """'holds' if at least one unit shows the effect (interval excluding zero), else 'fails'."""
    return "holds" if k >= 1 else "fails"


def order_outcome(first: float, second: float) -> str:
    """'holds' if first < second (e.g. rank of 'love' above rank of 'freedom': a smaller rank), else 'fails'."""
    return "holds" if first < second else "fails"


def threshold_outcome(value: float, limit: float, below: bool = True) -> str:
    """'holds' if value < limit (or > limit with below=False), else 'fails'."""
    return "holds" if ((value < limit) if below else (value > limit)) else "fails"


# --------------------------------------------------------------------------- claims, parts and verdicts

@dataclass
class Part:
    name: str
    outcome: str
    evidence: str
    refs: list = field(default_factory=list)  # the Ref of every number the evidence used
    context: bool = False  # shown, but not part of the verdict

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {self.outcome!r}")


@dataclass(frozen=True)
class Claim:
    key: str
    paper: str
    claim: str
    stated_in: str
    chapters: tuple[str, ...]
    data: str
    unit: str
    test: str
    evaluate: Callable  # (Evidence) -> list[Part]


def verdict(parts: list[Part]) -> tuple[str, str]:
    """(verdict, reason) from the parts' outcomes, by the rule in the module docstring."""
    counted = [p for p in parts if not p.context]
    testable = [p for p in counted if p.outcome != "untestable"]
    untestable = [p for p in counted if p.outcome == "untestable"]
    if not testable:
        return "not testable here", "; ".join(f"{p.name}: {p.evidence}" for p in untestable) or "no evidence"
    if all(p.outcome == "holds" for p in testable) and not untestable:
        return "replicates", "every part holds"
    if all(p.outcome == "fails" for p in testable):
        extra = f" ({len(untestable)} part(s) not testable here)" if untestable else ""
        return "does not", "; ".join(f"{p.name} {p.outcome}" for p in testable) + extra
    return "partly", "; ".join(f"{p.name}: {p.outcome}" for p in counted)


def rules_markdown() -> str:
    """The verdict rules with their thresholds, for the page."""
    return (f"- **Share rule** (claims about most units): a part *holds* when at least {MOST:.0%} of the units show "
            "the effect with their 95% interval (or test) on the claimed side; it *fails* when fewer than half do and "
            "at least as many show the opposite; otherwise it is *mixed* (for example, the right direction in every "
            "unit but clear in few).\n"
            f"- **Test rule**: a part *holds* when the chapter's test gives p < {ALPHA} (after its FDR correction, "
            "where it corrects) *and* the effect has the claimed sign; otherwise it *fails*.\n"
            "- **Existence rule** (claims that something *can* happen): a part *holds* when at least one unit shows "
            "it with an interval that excludes zero.\n"
            "- **Order rule**: a part *holds* when two of a chapter's numbers are in the claimed order.\n"
            f"- **Threshold rule**: e.g. RMs are *heterogeneous* when their median pairwise Kendall τ is below "
            f"{TAU_HETEROGENEOUS} (they disagree on the order of more than {(1 - TAU_HETEROGENEOUS) / 2:.0%} of item "
            f"pairs); *multiple* dimensions means at least {MULTIPLE}.\n"
            "- A part that needs what this book does not have is *untestable*, with the reason; *context* parts are "
            "shown but do not count.\n"
            "- **Verdict**: every part holds → **replicates**; every testable part fails → **does not**; no testable "
            "part → **not testable here**; anything else → **partly** (the reason lists each part's outcome).")
