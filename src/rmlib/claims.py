"""What replicates: every claim of the two papers, the evidence this book computes for it, and a verdict by rule.

Each :class:`Claim` names the sentence it tests, where the paper says it, the chapter and data that test it, and
the unit the claim is about (models, cells, items, checkpoints). Its ``evaluate`` function reads *only* numbers
that the chapters wrote to their results JSON (:mod:`rmlib.results`), through an :class:`Evidence` object that
records every number it hands out with the chapter and the path it came from, so the page cannot drift from the
chapters and a test can check each number against its source.

A claim is split into **parts** (e.g. the two halves of the framing claim). Each part gets an outcome by one of the
rules below, and the claim's verdict follows from its parts (:func:`verdict`). The thresholds are module constants,
printed on the page:

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
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import pandas as pd

__all__ = ["MOST", "ALPHA", "TAU_HETEROGENEOUS", "MULTIPLE", "VERDICTS", "Ref", "Part", "Claim", "Evidence",
           "Missing", "resolve", "share_outcome", "test_outcome", "exists_outcome", "order_outcome",
           "threshold_outcome", "verdict", "CLAIMS", "source_chapters", "load_evidence", "claims_table",
           "rules_markdown"]

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


# --------------------------------------------------------------------------- evidence with provenance

class Missing(LookupError):
    """A number the claim needs is not in the chapter's results (or the chapter has not run)."""


@dataclass(frozen=True)
class Ref:
    """One number (or label) taken from a chapter's results: where it came from and its value."""

    chapter: str
    path: str
    value: Any


_SEGMENT = re.compile(r"^(?P<key>[^\[\]]*)(?:\[(?P<sel>[^\]]*)\])?$")


def _split_path(path: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in path:
        if ch == "." and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    parts.append(cur)
    return parts


def resolve(data: Any, path: str) -> Any:
    """Follow ``path`` into nested results: dots separate keys; ``key[a=x,b=y]`` picks the one record of the list
    ``key`` whose fields match (values compared as text); an integer key indexes a list."""
    cur = data
    for seg in _split_path(path):
        m = _SEGMENT.match(seg)
        if not m:
            raise Missing(f"bad path segment {seg!r} in {path!r}")
        key, sel = m.group("key"), m.group("sel")
        if cur is None:
            raise Missing(f"the chapter did not compute {path} in this run (e.g. one seed, or too few models)")
        if key:
            if isinstance(cur, dict):
                if key not in cur:
                    raise Missing(f"no {key!r} in results (path {path!r})")
                cur = cur[key]
            elif isinstance(cur, list) and key.lstrip("-").isdigit():
                try:
                    cur = cur[int(key)]
                except IndexError:
                    raise Missing(f"index {key} out of range (path {path!r})") from None
            else:
                raise Missing(f"cannot look up {key!r} in a {type(cur).__name__} (path {path!r})")
        if sel is not None:
            if not isinstance(cur, list):
                raise Missing(f"{key!r} is not a list of records (path {path!r})")
            conds = [c.split("=", 1) for c in sel.split(",") if c]
            hits = [r for r in cur if isinstance(r, dict) and all(str(r.get(k)) == v for k, v in conds)]
            if len(hits) != 1:
                raise Missing(f"{len(hits)} records match [{sel}] in {key!r} (path {path!r})")
            cur = hits[0]
    return cur


class Evidence:
    """The chapters' results, handing out numbers and recording where each came from."""

    def __init__(self, results: dict[str, dict | None], reasons: dict[str, str] | None = None):
        self.results = results
        self.reasons = reasons or {}
        self.refs: list[Ref] = []

    def get(self, chapter: str, path: str) -> Any:
        data = self.results.get(chapter)
        if data is None:
            raise Missing(self.reasons.get(chapter, f"chapter {chapter!r} has not written results"))
        value = resolve(data, path)
        if value is None:
            raise Missing(f"the chapter {chapter} did not compute {path} in this run")
        self.refs.append(Ref(chapter, path, value))
        return value

    def take(self) -> list[Ref]:
        refs, self.refs = self.refs, []
        return refs


# --------------------------------------------------------------------------- claims, parts and verdicts

@dataclass
class Part:
    name: str
    outcome: str
    evidence: str
    refs: list[Ref] = field(default_factory=list)
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
    evaluate: Callable[[Evidence], list[Part]]


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


def _part(name: str, e: Evidence, fn: Callable[[], tuple[str, str]], context: bool = False) -> Part:
    """Run one part's evidence function; a missing number makes the part untestable with the reason."""
    try:
        outcome, text = fn()
    except Missing as err:
        e.take()
        return Part(name, "untestable", f"not available here: {err}", [], context)
    return Part(name, outcome, text, e.take(), context)


def _untestable(name: str, reason: str) -> Part:
    return Part(name, "untestable", reason)


def _n(x: float, spec: str = ".2f") -> str:
    return format(x, spec)


# --- FAccT 2025 ----------------------------------------------------------------------------------------------------

FACCT = "FAccT 2025"
ICLR = "ICLR 2026"
FACCT_ABSTRACT = "FAccT 2025 abstract (arXiv 2506.07326)"
ICLR_ABSTRACT = "ICLR 2026 abstract (arXiv 2601.20838)"


def _heterogeneity(e: Evidence) -> list[Part]:
    def tau():
        med = e.get("heterogeneity", "runs.published.tau_median")
        lo, hi = e.get("heterogeneity", "runs.published.tau_min"), e.get("heterogeneity", "runs.published.tau_max")
        return (threshold_outcome(med, TAU_HETEROGENEOUS),
                f"median Kendall τ between RMs' item rankings {_n(med)} (range {_n(lo)}–{_n(hi)})")

    def rsa():
        p = e.get("heterogeneity", "runs.published.rsa[design=same base family].p")
        r = e.get("heterogeneity", "runs.published.rsa[design=same base family].r")
        n = e.get("heterogeneity", "runs.published.rsa[design=same base family].n_models")
        return (test_outcome(p, r > 0),
                f"Mantel r = {_n(r)} with a same-base design, permutation p = {_n(p, '.3g')} ({n} RMs)")

    return [_part("RMs rank items differently", e, tau), _part("similarity follows the base model", e, rsa)]


def _asymmetry(e: Evidence) -> list[Part]:
    def skew():
        n = e.get("distributions", "skew_summary.published.n")
        neg = e.get("distributions", "skew_summary.published.n_negative")
        pos = e.get("distributions", "skew_summary.published.n_positive")
        return (share_outcome(max(neg, pos), n, against=min(neg, pos)),
                f"skewness CI below 0 for {neg} and above 0 for {pos} of {n} RMs (EloEverything items)")

    return [_part("asymmetric score distributions (items)", e, skew),
            _untestable("full-vocabulary tokens", "the paper RMs' full-vocabulary token scores are not in the "
                        "released data; sweeping them needs the RM weights on a GPU")]


def _framing(e: Evidence) -> list[Part]:
    def half(key, label):
        def fn():
            src = e.get("framing", "main_source")
            k = e.get("framing", f"halves_summary.{key}.holds")
            rev = e.get("framing", f"halves_summary.{key}.reversed")
            n = e.get("framing", f"halves_summary.{key}.n")
            cells = e.get("framing", f"cell_counts_by_half[half={key}].n_congruent_steeper")
            ncells = e.get("framing", f"cell_counts_by_half[half={key}].n_cells")
            try:  # the other lexicons, for the reader; not part of the verdict
                others = [o for o in e.get("framing", "halves_by_source") if o != src]
                other_text = ", ".join(f"{o.upper()} {e.get('framing', f'halves_by_source.{o}.{key}.holds')}"
                                       for o in others)
            except Missing:
                others, other_text = [], ""
            return (share_outcome(k, n, against=rev),
                    f"{label}: CI above 0 for {k} and below 0 for {rev} of {n} RMs ({str(src).upper()}); "
                    f"{cells} of {ncells} model × prompt cells in the claimed direction"
                    + (f"; CI above 0 with the other lexicons: {other_text}" if others else ""))
        return fn

    return [_part("positive prompts: more sensitive to positive words", e, half("pos_prompts", "first half")),
            _part("negative prompts: more sensitive to negative words", e, half("neg_prompts", "second half"))]


def _exposure(e: Evidence) -> list[Part]:
    def valence(pv):
        def fn():
            sources = e.get("mere_exposure", "matchings")
            rows = [(s, e.get("mere_exposure", f"by_model[source={s},prompts={pv}].n_above"),
                     e.get("mere_exposure", f"by_model[source={s},prompts={pv}].n_below"),
                     e.get("mere_exposure", f"by_model[source={s},prompts={pv}].n_models")) for s in sources]
            outcomes = {share_outcome(k, n, against=j) for _, k, j, n in rows}
            outcome = ("holds" if outcomes == {"holds"} else "fails" if outcomes == {"fails"} else "mixed")
            return (outcome, "frequency slope above zero (pooled over prompts, CI clustered by word) for " + ", ".join(
                f"{k} of {n} RMs ({s}; below zero for {j})" for s, k, j, n in rows))
        return fn

    return [_part("positive prompts, every frequency matching", e, valence("positive")),
            _part("negative prompts, every frequency matching", e, valence("negative"))]


def _identity(e: Evidence) -> list[Part]:
    def placement():
        below = e.get("identity_terms", "elo.n_below")
        above = e.get("identity_terms", "elo.n_above")
        n = e.get("identity_terms", "elo.n_items")
        return (exists_outcome(below),
                f"{below} of {n} identity items sit reliably lower for the RMs than for people (interval over "
                f"RMs below 0), {above} reliably higher")

    return [_part("some identity terms placed below human ratings", e, placement),
            _untestable("caused by harmlessness training", "needs the RMs' training data or an ablation of "
                        "harmlessness data, which this book does not have")]


def _themes(e: Evidence) -> list[Part]:
    def theme(t):
        def fn():
            d = e.get("elo_misalignment", f"topics.themes[topic={t}].direction")
            ratio = e.get("elo_misalignment", f"topics.themes[topic={t}].ratio")
            p = e.get("elo_misalignment", f"topics.themes[topic={t}].p_fdr")
            k = e.get("elo_misalignment", f"topics.themes[topic={t}].n_flagged")
            exp = e.get("elo_misalignment", f"topics.themes[topic={t}].expected")
            word = {"over": "over-represented", "under": "under-represented (the reverse)"}.get(d, "not different")
            return ("holds" if d == "over" else "fails",
                    f"{word}: {k} among the most undervalued vs {_n(exp, '.1f')} expected (ratio {_n(ratio)}, "
                    f"FDR p = {_n(p, '.3g')})")
        return fn

    return [_part(t, e, theme(t)) for t in ("nature", "life", "technology", "human sexuality")]


def _love_freedom(e: Evidence) -> list[Part]:
    def model(nick, first, second):
        def fn():
            r1 = e.get("big_two", f"love_freedom[nickname={nick},word={first}].rank")
            r2 = e.get("big_two", f"love_freedom[nickname={nick},word={second}].rank")
            n = e.get("big_two", f"love_freedom[nickname={nick},word={first}].n_words")
            return order_outcome(r1, r2), f"{nick}: '{first}' rank {r1:.0f}, '{second}' rank {r2:.0f} of {n} words"
        return fn

    return [_part("R-Gem-2B puts love above freedom", e, model("R-Gem-2B", "love", "freedom")),
            _part("R-Lla-3B puts freedom above love", e, model("R-Lla-3B", "freedom", "love"))]


def _big_two(e: Evidence) -> list[Part]:
    def panel(category, sign):
        def fn():
            path = f"results.published.panels[category={category},valence=positive]"
            diff = e.get("big_two", f"{path}.difference")
            p = e.get("big_two", f"{path}.p_fdr")
            higher = "Llama" if diff > 0 else "Gemma"
            return (test_outcome(p, diff * sign > 0),
                    f"{category}, positive prompts: {higher}-based RMs rank it higher (Gemma − Llama median rank "
                    f"{_n(diff, '+.1f')}, FDR p = {_n(p, '.3g')})")
        return fn

    return [_part("Llama RMs rank agency higher", e, panel("Agency", +1)),
            _part("Gemma RMs rank communion higher", e, panel("Communion", -1))]


def _mfd2(e: Evidence) -> list[Part]:
    def pooled():
        k = e.get("moral_foundations", "by_foundation.n_significant_fdr")
        n = e.get("moral_foundations", "by_foundation.n_panels")
        return ("holds" if k >= MULTIPLE else "fails",
                f"{k} of {n} foundation × valence panels (virtue and vice pooled, as the authors test it) differ "
                "between Gemma- and Llama-based RMs after FDR")

    def split():
        k = e.get("moral_foundations", "results.published.n_significant_fdr")
        n = e.get("moral_foundations", "results.published.n_panels")
        return ("holds" if k >= MULTIPLE else "fails",
                f"{k} of {n} foundation × virtue/vice × valence panels differ after FDR")

    return [_part("several foundations differ by base family", e, pooled),
            _part("the same with virtue and vice apart", e, split, context=True)]


def _three_way(e: Evidence) -> list[Part]:
    def fn():
        term = e.get("big_two", "three_way.term")
        est = e.get("big_two", "three_way.estimate")
        p = e.get("big_two", "three_way.p")
        return (test_outcome(p, True),
                f"mixed model (random intercept per RM), {term}: {_n(est, '+.1f')} rank points, p = {_n(p, '.3g')} "
                "(prompts count as independent replicates, as in the authors' model; the Big Two row's model-level "
                "tests are stricter)")
    return [_part("family × category × valence (Big Two)", e, fn)]


def _implicit(e: Evidence) -> list[Part]:
    def fn():
        path = "mwlr_gemma_llama"
        model = e.get("implicit_rewards", f"{path}.model")
        g = e.get("implicit_rewards", f"{path}.hedges_g")
        p = e.get("implicit_rewards", f"{path}.p_fdr")
        return (test_outcome(p, g > 0),
                f"{model}, positive prompts: Hedges' g (Agency − Communion mean rank) {_n(g, '+.2f')}, FDR p = "
                f"{_n(p, '.3g')}")
    return [_untestable("the paper's LMs (Gemma-2, Llama-3)", "needs their log-probs (about 2 GB on a model hub) "
                        "or the models on a GPU"),
            _part("same method on the embedded LMs (Gemma-3 vs SmolLM2, a Llama-architecture model)", e, fn,
                  context=True)]


def _ablation(e: Evidence) -> list[Part]:
    def published():
        k = e.get("finetuning", "durability.published.final_claimed_holds")
        n = e.get("finetuning", "durability.published.final_n")
        return (share_outcome(k, n),
                f"Llama's Agency − Communion gap below Gemma's at the final checkpoint in {k} of {n} published "
                "runs (data sources and sizes)")

    def ours():
        k = e.get("finetuning", "base_effect.n_prompts_significant")
        n = e.get("finetuning", "base_effect.n_prompts")
        return (share_outcome(k, n),
                f"our RMs on identical data: the base explains the gap (one-way ANOVA over seeds, p < {ALPHA}) under "
                f"{k} of {n} prompts")

    return [_part("published runs, identical data per run", e, published), _part("RMs trained here", e, ours)]


def _durability(e: Evidence) -> list[Part]:
    def published():
        k = e.get("finetuning", "durability.published.checkpoints_claimed_holds")
        n = e.get("finetuning", "durability.published.checkpoints_n")
        flips = e.get("finetuning", "durability.published.runs_with_flip")
        runs = e.get("finetuning", "durability.published.n_runs")
        return (share_outcome(k, n),
                f"Llama below Gemma on the gap at {k} of {n} published checkpoints; {flips} of {runs} runs change "
                "the order of their base families between checkpoints")

    def seeds():
        k = e.get("finetuning", "durability.ours.n_seeds_modal_order")
        n = e.get("finetuning", "durability.ours.n_seeds")
        w = e.get("finetuning", "durability.ours.kendall_w")
        return (share_outcome(k, n),
                f"our RMs: {k} of {n} seeds give the most common order of the bases (Kendall's W = {_n(w)})")

    return [_part("published checkpoints keep the order", e, published),
            _part("our RMs keep one order across seeds", e, seeds)]


CLAIMS: list[Claim] = [
    Claim("heterogeneity", FACCT, "Reward models trained for similar objectives rank the same answers very "
          "differently, and how alike two RMs are follows their base model.",
          FACCT_ABSTRACT + " (i); the base-model influence: the paper's heterogeneity section",
          ("heterogeneity",), "published scores of the 10 RMs for 7,530 EloEverything items", "pairs of RMs",
          f"median pairwise Kendall τ below {TAU_HETEROGENEOUS}; Mantel test of τ against a same-base design",
          _heterogeneity),
    Claim("asymmetry", FACCT, "RMs encode high- and low-scoring answers asymmetrically.", FACCT_ABSTRACT + " (ii)",
          ("distributions",), "published EloEverything scores (items, not single tokens)", "RMs",
          "skewness with a bootstrap CI, same sign in most RMs", _asymmetry),
    Claim("framing", FACCT, "Under positive prompts RMs are more sensitive to positive words; under negative "
          "prompts, to negative words.", FACCT_ABSTRACT + " (iii) and the authors' announcement",
          ("framing",), "published scores of dictionary words under 54 prompts (word level; the paper used "
          "tokens)", "RMs", "per model, each half's contrast of oriented valence slopes with a word-clustered CI",
          _framing),
    Claim("mere_exposure", FACCT, "RMs over-value frequent words: scores rise with word frequency in almost all "
          "models and prompts.", FACCT_ABSTRACT + " (iv)", ("mere_exposure",),
          "published dictionary-word scores; frequency by exact BNC form, BNC lemma totals and wordfreq", "RMs",
          "per RM and prompt valence, the frequency slope pooled over prompts (valence held fixed) with a "
          "word-clustered CI; each frequency matching", _exposure),
    Claim("identity_terms", FACCT, "RMs can encode biases toward identity groups, possibly as a side effect of "
          "harmlessness training.", FACCT_ABSTRACT, ("identity_terms",),
          "published EloEverything scores of identity items vs human Elo", "identity items",
          "RM percentile − human percentile, bootstrap interval over RMs", _identity),
    Claim("misalignment_themes", FACCT, "Compared with human ratings, RMs undervalue concepts related to nature, "
          "life, technology and human sexuality.", "FAccT 2025, EloEverything section", ("elo_misalignment",),
          "published EloEverything scores of 10 RMs vs human Elo; WordNet topics", "items",
          "permutation test over items (within human-rank bins) of each theme among the 10% most undervalued, "
          "FDR across themes", _themes),
    Claim("love_freedom", FACCT, "RMs from one developer and one data set differ at the top: R-Gem-2B's best "
          "answer to 'the greatest thing ever' is LOVE, R-Lla-3B's is freedom.",
          "FAccT 2025, optimal tokens (figure 1); the ICLR paper's figure 3 contrasts the same two words",
          ("big_two",), "published scores of the Big Two nouns under 'What, in one word, is the greatest thing "
          "ever?' (whole words, not the single tokens of the paper)", "the two named RMs",
          "rank of each word among the dictionary words", _love_freedom),
    Claim("big_two", ICLR, "Llama-based RMs prefer agency words, Gemma-based RMs communion words.",
          ICLR_ABSTRACT, ("big_two",), "published scores of the 10 RMs for the Big Two nouns, 54 prompts",
          "RMs (4 Gemma vs 6 Llama)", "permutation Welch test per category × valence panel, models as replicates, "
          "FDR across panels (the authors: Bonferroni)", _big_two),
    Claim("mfd2", ICLR, "RMs differ by base model along several moral foundations.", ICLR_ABSTRACT
          + " ('multiple dimensions of human value')", ("moral_foundations",),
          "published scores of the 10 RMs for the MFD2 terms, 54 prompts", "RMs",
          f"permutation tests per foundation × valence panel (virtue and vice pooled, as the authors do), models as "
          f"replicates, FDR; holds with at least {MULTIPLE}", _mfd2),
    Claim("three_way", ICLR, "The family difference depends on the category and on the prompt's valence (a "
          "family × category × valence interaction).", "ICLR 2026 main text; the authors' "
          "figures/generate_figure_1_and_A1.R fits lme(median rank ~ base_model*Category*prompt_framing, "
          "random = ~1|model_id)", ("big_two",), "published Big Two median ranks per RM × prompt × category",
          "RMs (random intercept) with prompts as replicates", "mixed model, three-way term", _three_way),
    Claim("implicit_rewards", ICLR, "Log-probability differences between instruction-tuned and pretrained LMs "
          "form implicit RMs that show the same agency/communion difference.", ICLR_ABSTRACT,
          ("implicit_rewards",), "embedded LMs only (the paper's LMs are not available here)", "words",
          "permutation Welch test of Agency vs Communion ranks under each implicit reward, FDR", _implicit),
    Claim("ablations", ICLR, "The base-model difference holds when the preference data and fine-tuning are "
          "identical.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files (rank_results_*.csv) and RMs trained here from the embedded bases",
          "training runs", "order of the families' gaps at the final checkpoint; one-way ANOVA of the gap on the "
          "base across seeds", _ablation),
    Claim("durability", ICLR, "The effect is repeatable and durable: as training and preference data grow, RMs "
          "keep their base family's ordering.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files; RMs trained here (seeds)", "checkpoints; seeds",
          "the claimed order (Llama below Gemma) at each checkpoint; pairwise flips; Kendall's W across seeds",
          _durability),
]


def source_chapters() -> list[str]:
    """Every chapter whose results the claims page reads, in book order of first use."""
    return list(dict.fromkeys(c for claim in CLAIMS for c in claim.chapters))


def load_evidence(results_dir: str | os.PathLike) -> Evidence:
    """Read every source chapter's results from ``results_dir`` (a missing chapter becomes a reason, not an
    error, so the page still shows what can be shown)."""
    from rmlib.results import ResultsError, read

    results, reasons = {}, {}
    for name in source_chapters():
        try:
            results[name] = read(name, results_dir)
        except ResultsError as err:
            results[name], reasons[name] = None, str(err)
    return Evidence(results, reasons)


def claims_table(evidence: Evidence) -> tuple[pd.DataFrame, dict[str, list[Part]]]:
    """One row per claim (paper, claim, stated_in, chapters, data, unit, test, evidence, verdict, reason) and the
    parts of each claim, with the references of every number used."""
    rows, parts = [], {}
    for c in CLAIMS:
        ps = c.evaluate(evidence)
        v, why = verdict(ps)
        parts[c.key] = ps
        rows.append({"key": c.key, "paper": c.paper, "claim": c.claim, "stated_in": c.stated_in,
                     "chapter": ", ".join(c.chapters), "data": c.data, "unit": c.unit, "test": c.test,
                     "evidence": "; ".join(f"{p.name}: {p.evidence} [{p.outcome}{', context' if p.context else ''}]"
                                           for p in ps),
                     "verdict": v, "reason": why})
    return pd.DataFrame(rows), parts


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
