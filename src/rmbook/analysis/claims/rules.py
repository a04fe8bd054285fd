"""How a claim gets a verdict: one vocabulary of outcomes, the rules that give a part its outcome, and the rule from
parts to a verdict. The thresholds are module constants, and the page prints the rules from this module
(the claims template's ``rules``, from :func:`rules_fields`), so what the page says is what the code does.

**One bar in both directions.** Every rule with a claimed direction is the mirror image of itself: a part *fails*
only by the standard that makes it *hold*, with the claimed direction turned round (most units clearly against; a
significant effect the other way; an interval wholly on the wrong side). Some parts are **one-sided checks**: they
can hold but never fail, because their claim names no side to turn round ("asymmetric", "several foundations
differ") or says only that something *can* happen (the existence rule: not finding an example does not show there
is none). Each such part carries the reason (``Part.one_sided``) and the page marks it; a claim that rests on one
can never be *does not*. Units that are merely not significant are unclear, never against.
Swapping the claimed direction of any evidence swaps *holds* and *fails* and leaves every other outcome as it is
(``tests/unit/chapters/claims/test_rules.py`` checks this on random planted cases). Every rule that rests on a test
also takes its **attainable significance** into account: no part is decided by a test with four and six models that
could not reach significance, and none by a Monte Carlo p whose error straddles alpha.

**Sidedness.** Every test is two-sided (:data:`SIDES`): twice the smaller one-sided tail, capped at 1 (scipy's
convention, :func:`rmlib.stats.permutation.label_permutation_p`), not the share with |stat| >= |observed|, which
differs for a skewed null. Also for claims with a direction: the same test then decides
*holds* (significant with the claimed sign) and *fails* (significant with the other), the criterion of the large
replication projects (a significant effect, two-sided p < .05, in the original direction). A one-sided test in the
claimed direction would halve the bar for holding and leave no test for failing.

Outcomes of a part (``OUTCOMES``):

* **holds**: the evidence supports the claim, by the rule's threshold;
* **mixed**: some units clearly show the effect or its opposite, but neither side has most of them;
* **not established**: nothing is clear either way (a test or interval that cannot exclude chance, whichever way
  its estimate points; its smallest attainable p is stated where it is the limit);
* **fails**: the mirror of holds: the evidence goes against the claim by the same threshold;
* **untestable**: the part needs what this book does not have, with the reason.

Rules:

* share rule (:func:`share_outcome`), for claims about most units (models, prompts, runs);
* test rule (:func:`test_outcome`), for one test with a claimed sign;
* interval rule (:func:`interval_outcome`), for one interval with a claimed side;
* equivalence rule (:func:`equivalence_outcome`), for "comparable" claims, with a stated margin;
* existence rule (:func:`exists_outcome`), for "can" claims;
* order and threshold rules (:func:`order_outcome`, :func:`threshold_outcome`), for a claimed order or a side of a
  stated threshold (descriptive: no test), each with a stated band within which the two numbers are too close to
  call (:data:`TAU_BAND`, :data:`RANK_BAND_SHARE`); a tie is "not established" everywhere, a tied run included.

Verdicts (``VERDICTS``), symmetric as the rules are: every counted part holds -> **replicates**; every counted part
fails -> **does not**; every testable part not established -> **not established**; no testable part -> **not
testable here**; anything else -> **partly**, shown with the way it leans (:func:`partly_lean`: *for*, *against*
or *both ways*), whose reason names each part's outcome (a failing part is never hidden
behind another, and an untestable part keeps a claim from *replicates* and from *does not* alike). Parts marked
``context`` are shown but do not enter the verdict (e.g. the same method on stand-in models, or RMs trained here with
too little power).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterator

from scipy import stats
from statsmodels.stats.multitest import multipletests

from rmlib.stats.group_tests import exact_two_group_floor  # re-exported: the rules state it on the page

__all__ = ["MOST", "ALPHA", "TAU_HETEROGENEOUS", "MULTIPLE", "VERDICTS", "OUTCOMES", "share_outcome", "test_outcome",
           "interval_outcome", "equivalence_outcome", "exists_outcome", "order_outcome", "threshold_outcome",
           "TAU_BAND", "RANK_BAND_SHARE", "rank_band",
           "exact_two_group_floor", "bh_floor", "SIDES", "SUPPORTS", "support_of", "chance_p", "holm_adjusted", "under_control", "recording_tests", "EXISTENCE", "LEANS", "partly_lean", "verdict_shown", "monte_carlo_straddles", "Said", "said", "Part", "Claim", "verdict", "rules_fields", "sentences", "VERDICT_WORDS"]

MOST = 0.75            # share of units that must show the effect for a part to hold
ALPHA = 0.05           # significance level for test-based parts (after the chapter's FDR correction)
TAU_HETEROGENEOUS = 0.6  # median pairwise Kendall tau below this: RMs disagree on >= 20% of item pairs
TAU_BAND = 0.02        # a median tau within this of TAU_HETEROGENEOUS is too close to call: 1 point of item pairs
RANK_BAND_SHARE = 0.01  # two ranks closer than this share of the ranked words (at least one rank) are too close
MULTIPLE = 2           # "multiple dimensions": at least this many foundations
SIDES = "two-sided"    # every test behind a part (rmlib.stats.permutation.ALTERNATIVE, group_tests: two-sided)

VERDICTS = ("replicates", "partly", "not established", "does not", "not testable here")
OUTCOMES = ("holds", "mixed", "not established", "fails", "untestable")
#: the kind of support a part gives (:attr:`Part.support`): *reproduction* re-analyses the authors' released scores
#: and checkpoints; *replication* tests the claim on new models (the embedded LMs, RMs trained here, other RMs)
SUPPORTS = ("reproduction", "replication")
#: why an existence part is one-sided (:attr:`Part.one_sided`)
EXISTENCE = "a 'can' claim: not finding an example does not show there is none"
LEANS = ("for", "both ways", "against")  # which way a "partly" leans (partly_lean)


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


# --------------------------------------------------------------------------- what a test can reach

def bh_floor(p_floor: float, m: int, k: int = 1) -> float:
    """The smallest Benjamini–Hochberg adjusted p that a panel can reach when ``k`` of ``m`` panels sit at the raw
    floor ``p_floor`` (and the others above): p_floor * m / k. With one panel at the floor of 0.0095 among 10 that
    is 0.095, so no single panel can pass at 0.05."""
    if m < 1 or not 1 <= k <= m:
        raise ValueError(f"need 1 <= k <= m, got k={k}, m={m}")
    return min(1.0, p_floor * m / k)


# --------------------------------------------------------------------------- error control (#63 item 5)

# Set while a claim is judged under error control (:func:`under_control`): the Holm-adjusted p of each raw p of the
# claim's counted tests. None: uncorrected, as each part's own 95% intervals and tests give it.
_CONTROL: ContextVar[dict | None] = ContextVar("claims_control", default=None)
# Set while one part is judged (:func:`recording_tests`): the raw p of every test it decides by.
_TESTS: ContextVar[list | None] = ContextVar("claims_tests", default=None)


def chance_p(clear: int, n: int) -> float:
    """How often at least ``clear`` of ``n`` units would be clear (either way) by chance alone, when each unit's 95%
    interval or test excludes the null with probability ALPHA and nothing is there: a one-sided binomial test
    (scipy.stats.binomtest). One of ten: 1 - 0.95^10 = 0.40."""
    return 1.0 if clear <= 0 else float(stats.binomtest(clear, n, ALPHA, alternative="greater").pvalue)


def holm_adjusted(ps: list[float]) -> dict[float, float]:
    """Each raw p of one claim's counted tests -> its Holm-adjusted p (statsmodels ``multipletests``)."""
    if not ps:
        return {}
    adjusted = multipletests(ps, alpha=ALPHA, method="holm")[1]
    return {float(p): float(a) for p, a in zip(ps, adjusted)}


@contextmanager
def under_control(holm: dict[float, float] | None = None) -> Iterator[None]:
    """Judge under the page's error control while the block runs: a share-rule or existence part counts its clear
    units only when there are more than chance gives (:func:`chance_p` <= ALPHA, else not established), and a
    test-rule part reads its Holm-adjusted p (``holm``, from :func:`holm_adjusted`) instead of the raw one."""
    token = _CONTROL.set(dict(holm or {}))
    try:
        yield
    finally:
        _CONTROL.reset(token)


@contextmanager
def recording_tests() -> Iterator[list]:
    """The raw p of every test-rule decision made while the block runs (one part's), for the claim's Holm set."""
    ps: list = []
    token = _TESTS.set(ps)
    try:
        yield ps
    finally:
        _TESTS.reset(token)


def _beyond_chance(clear: int, n: int) -> bool:
    """False only under error control, when ``clear`` of ``n`` units are what chance alone gives."""
    return _CONTROL.get() is None or chance_p(clear, n) <= ALPHA


# --------------------------------------------------------------------------- rules

def share_outcome(k: int, n: int, *, against: int) -> str:
    """For claims about most units. ``k`` units show the effect clearly (interval or test on the claimed side),
    ``against`` clearly the other way; the rest are unclear. Every caller says how many are against: a unit that is
    merely not significant is unclear, not against.

    'holds' if k/n >= MOST; 'fails' if against/n >= MOST (the mirror); 'not established' if no unit is clear either
    way; else 'mixed'; 'untestable' when n == 0."""
    if n <= 0:
        return "untestable"
    if min(k, against) < 0:
        raise ValueError(f"unit counts cannot be negative; got k={k}, against={against}")
    if k + against > n:
        raise ValueError(f"{k} units for and {against} against are more than the {n} units")
    if not _beyond_chance(k + against, n):
        return "not established"
    if k / n >= MOST:
        return "holds"
    if against / n >= MOST:
        return "fails"
    if k == 0 and against == 0:
        return "not established"
    return "mixed"


def monte_carlo_straddles(p: float, se: float | None) -> bool:
    """Whether a Monte Carlo p is too close to ALPHA to say which side it is on: p ± 2·SE contains ALPHA. An exact
    p (se 0 or None) never straddles."""
    return bool(se) and p - 2 * se < ALPHA <= p + 2 * se


def test_outcome(p: float | None, right_direction: bool, floor: float | None = None, se: float | None = None) -> str:
    """One two-sided test of an effect with a claimed sign: 'holds' if p < ALPHA and the effect has that sign;
    'fails' if p < ALPHA with the other sign (the mirror); 'not established' if p >= ALPHA (the test cannot exclude
    chance, whichever way the estimate points), and always when the smallest attainable p (``floor``) is itself >=
    ALPHA (no test at this size could pass) or when a Monte Carlo p's interval p ± 2·``se`` straddles ALPHA
    (:func:`monte_carlo_straddles`); 'untestable' when p is missing."""
    if _missing(p):
        return "untestable"
    if (recorded := _TESTS.get()) is not None:
        recorded.append(float(p))
    if (holm := _CONTROL.get()) is not None:
        p = holm.get(float(p), p)
    if floor is not None and floor >= ALPHA:
        return "not established"
    if monte_carlo_straddles(p, se):
        return "not established"
    if p < ALPHA:
        return "holds" if right_direction else "fails"
    return "not established"


def interval_outcome(lo: float, hi: float, *, claimed: str, null: float = 0.0) -> str:
    """One interval with a claimed side of ``null``: 'holds' if it lies entirely on the claimed side ('above' or
    'below'), 'fails' if entirely on the other, 'not established' if it spans the null. The same rule for both
    sides, so the burden of proof never depends on which way a claim is phrased."""
    if claimed not in ("above", "below"):
        raise ValueError(f"claimed must be 'above' or 'below', not {claimed!r}")
    if _missing(lo) or _missing(hi):
        return "untestable"
    above, below = lo > null, hi < null
    if not (above or below):
        return "not established"
    return "holds" if (above if claimed == "above" else below) else "fails"


def equivalence_outcome(lo: float, hi: float, margin: float, *, better_ok: bool = False) -> str:
    """'Comparable' (or, with ``better_ok``, 'comparable or better'): 'holds' if the interval lies inside
    (-margin, +margin) (or above -margin); 'fails' if it lies entirely beyond the margin on the wrong side (below
    -margin, or above +margin without ``better_ok``); else 'not established' (too wide to tell)."""
    if margin <= 0:
        raise ValueError(f"the equivalence margin must be positive, got {margin}")
    if _missing(lo) or _missing(hi):
        return "untestable"
    if lo > -margin and (better_ok or hi < margin):
        return "holds"
    if hi < -margin or (not better_ok and lo > margin):
        return "fails"
    return "not established"


def exists_outcome(k: int, n: int | None = None) -> str:
    """For 'can' claims: 'holds' if at least one unit shows the effect (interval excluding zero, or beyond a stated
    margin), else 'not established' (not finding an example does not show there is none). ``n``: the units looked
    at, where each is an interval, so that under error control k must beat chance (:func:`under_control`)."""
    if n is not None and not _beyond_chance(k, n):
        return "not established"
    return "holds" if k >= 1 else "not established"


def rank_band(n_words: int) -> int:
    """How many ranks apart two words may be and still be too close to call among ``n_words``: RANK_BAND_SHARE of
    them, and at least one rank (so ranks one apart never decide an order)."""
    return max(1, math.floor(RANK_BAND_SHARE * n_words))


def order_outcome(first: float, second: float, band: float = 0.0) -> str:
    """'holds' if first < second (e.g. rank of 'love' above rank of 'freedom': a smaller rank), 'fails' if
    first > second, 'not established' on a tie or when the two are within ``band`` of each other (too close to
    call; the mirror of a tie is a tie)."""
    if abs(first - second) <= band:
        return "not established"
    return "holds" if first < second else "fails"


def threshold_outcome(value: float, limit: float, below: bool = True, band: float = 0.0) -> str:
    """'holds' if value < limit (or > limit with below=False), 'fails' if on the other side, 'not established' at
    the limit itself or within ``band`` of it (too close to call: a single number a hair either side of a
    threshold decides nothing)."""
    if abs(value - limit) <= band:
        return "not established"
    return "holds" if ((value < limit) if below else (value > limit)) else "fails"


# --------------------------------------------------------------------------- claims, parts and verdicts

#: the template of the sentences every claim shares (a verdict's reason, the evidence cell, the attainable floor):
#: the report layer's ``templates/verdicts.md.j2``
VERDICT_WORDS = "verdicts"


@dataclass(frozen=True)
class Said:
    """What a part's evidence sentence states: the macro that words it (``kind``), the template that holds that
    macro (``template``: a chapter's ``<chapter>/claims.md.j2`` beside its ``claims.py``, or the shared
    :data:`VERDICT_WORDS`) and the fields it is rendered from, every one computed by the evaluator (the template only
    chooses words). The analysis layer does not render: :class:`Evidence` is given the renderer (``say``) by the
    page (:func:`rmbook.report.brief.words`)."""

    kind: str
    fields: dict
    template: str = VERDICT_WORDS


def said(kind: str, **fields) -> Said:
    """The shared sentence ``kind`` (:data:`VERDICT_WORDS`) with its ``fields``."""
    return Said(kind, fields)


def sentences(chapter: str) -> Callable[..., Said]:
    """``said`` for the claims of ``chapter``: its evidence sentences are macros of the chapter's own
    ``claims.md.j2`` (beside its ``claims.py``), so an edit to them reruns that chapter and the claims page only."""
    def said_(kind: str, **fields) -> Said:
        return Said(kind, fields, f"{chapter}/claims")
    return said_


@dataclass
class Part:
    name: str
    outcome: str
    evidence: str  # the sentence, rendered from ``said``; a fixed reason when the part is untestable
    refs: list = field(default_factory=list)  # the Ref of every number the evidence used
    context: bool = False  # shown, but not part of the verdict
    floor: float | None = None  # the smallest p the part's test can attain at this size, where it rests on a test
    note: str = ""  # a qualifier the verdict's reason repeats, e.g. "lexicon-dependent: holds with WARRINER"
    derived: list = field(default_factory=list)  # numbers computed from the refs (counts, floors), as Refs
    said: Said | None = None  # what ``evidence`` was rendered from
    one_sided: str = ""  # why the part can hold but never fail (a one-sided check); "" for a two-sided part
    support: str = "reproduction"  # SUPPORTS: the authors' released data re-analysed, or new models
    controlled: str = ""  # its outcome under the page's error control (:func:`under_control`); "" until judged
    tests: list = field(default_factory=list)  # the raw p of each test it decided by (the claim's Holm set)

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
    place: int = 0  # where the paper states it among its claims: the page lists a paper's claims in this order


def _rows(parts: list[Part]) -> list[dict]:
    return [{"name": p.name, "outcome": p.outcome, "note": p.note, "evidence": p.evidence} for p in parts]


def verdict(parts: list[Part]) -> tuple[str, Said]:
    """(verdict, reason) from the parts' outcomes, by the rule in the module docstring: symmetric, so that turning
    every part's holds into fails turns 'replicates' into 'does not' and leaves the other verdicts as they are. The
    reason is what the claims template's ``reason`` macro words: each counted part's outcome (and note), or why
    nothing is testable."""
    counted = [p for p in parts if not p.context]
    testable = [p for p in counted if p.outcome != "untestable"]
    if not testable:
        return "not testable here", said("reason", case="untestable", parts=_rows(counted))
    outcomes = {p.outcome for p in counted}
    if outcomes == {"holds"}:
        return "replicates", said("reason", case="every part holds", parts=[])
    if outcomes == {"fails"}:
        return "does not", said("reason", case="every part fails", parts=_rows(counted))
    case = "not established" if outcomes <= {"not established", "untestable"} else "partly"
    return case, said("reason", case="outcomes", parts=_rows(counted))


def partly_lean(parts: list[Part]) -> str:
    """Which way a *partly* verdict leans, by its counted parts: 'for' when some part holds and none fails,
    'against' when some part fails and none holds, 'both ways' otherwise (parts that hold and parts that fail, or
    only mixed ones). The mirror of 'for' is 'against'; 'both ways' is its own. Shown with the verdict, so that
    "partly" never reads as partial replication when it is a failure with nothing else clear."""
    outcomes = {p.outcome for p in parts if not p.context}
    holds, fails = "holds" in outcomes, "fails" in outcomes
    return "for" if holds and not fails else "against" if fails and not holds else "both ways"


def support_of(parts: list[Part]) -> str:
    """The kind of support a verdict rests on: the :data:`SUPPORTS` of its counted, testable parts ('reproduction',
    'replication', 'reproduction and replication'), or '' when no counted part is testable."""
    kinds = {p.support for p in parts if not p.context and p.outcome != "untestable"}
    return " and ".join(k for k in SUPPORTS if k in kinds)


def verdict_shown(verdict_: str, lean: str) -> str:
    """The verdict as the page shows it: 'partly' with its lean ('partly (against)'), any other verdict as it is."""
    return f"{verdict_} ({lean})" if verdict_ == "partly" and lean else verdict_


def rules_fields() -> dict:
    """The thresholds the page's statement of the rules shows (its sentences: the claims template's ``rules``)."""
    return {"most": MOST, "alpha": ALPHA, "sides": SIDES, "tau_heterogeneous": TAU_HETEROGENEOUS,
            "disagree_share": (1 - TAU_HETEROGENEOUS) / 2, "multiple": MULTIPLE, "tau_band": TAU_BAND,
            "tau_band_pairs": TAU_BAND / 2, "rank_band_share": RANK_BAND_SHARE, "one_of_ten": chance_p(1, 10)}
