"""Every claim of the two papers (and of Razin et al.'s, which the reward-model quality chapters test): the sentence
it tests, where the paper says it, the chapters and data that test it, the unit it is about, and the function that
judges its parts from the chapters' numbers (``facct.py``, ``iclr.py``, ``teaching.py``, ``implicit_explicit.py``)."""
from __future__ import annotations

import dataclasses
import os

import pandas as pd

from rmbook.analysis.results import result_type
from rmbook.chapters.claims import facct, iclr, teaching
from rmbook.chapters.claims.evidence import Evidence, Say
from rmbook.chapters.claims.implicit_explicit import implicit_explicit_claims
from rmbook.chapters.claims.rules import (MULTIPLE, TAU_HETEROGENEOUS, Claim, Part, holm_adjusted, partly_lean, said,
                                          support_of, under_control, verdict)
from rmbook.chapters.claims.teaching import RAZIN, RAZIN_PAPER, TEACHING
from rmlib.storage import ResultsError, read_results

__all__ = ["CLAIMS", "FACCT", "ICLR", "RAZIN", "source_chapters", "chapter_claims", "load_evidence", "judge",
           "claims_table"]

FACCT = "FAccT 2025"
ICLR = "ICLR 2026"
FACCT_ABSTRACT = "FAccT 2025 abstract (arXiv 2506.07326)"
ICLR_ABSTRACT = "ICLR 2026 abstract (arXiv 2601.20838)"


CLAIMS: list[Claim] = [
    Claim("heterogeneity", FACCT, "Reward models trained for similar objectives rank the same answers very "
          "differently, and how alike two RMs are follows their base model.",
          FACCT_ABSTRACT + " (i); the base-model influence: the paper's heterogeneity section",
          ("heterogeneity",), "published scores of the 10 RMs for 7,530 EloEverything items", "pairs of RMs",
          f"median pairwise Kendall τ below {TAU_HETEROGENEOUS}; partial Mantel test of τ against a same-base "
          "design with model size held fixed",
          facct.heterogeneity),
    Claim("asymmetry", FACCT, "RMs encode high- and low-scoring answers asymmetrically.", FACCT_ABSTRACT + " (ii)",
          ("distributions",), "published EloEverything scores (items, not single tokens)", "RMs",
          "skewness with a bootstrap CI, same sign in most RMs", facct.asymmetry),
    Claim("framing", FACCT, "Under positive prompts RMs are more sensitive to positive words; under negative "
          "prompts, to negative words.", FACCT_ABSTRACT + " (iii) and the authors' announcement",
          ("framing",), "published scores of dictionary words under 54 prompts (word level; the paper used "
          "tokens)", "RMs", "per model, each half's contrast of oriented valence slopes with a word-clustered CI",
          facct.framing),
    Claim("mere_exposure", FACCT, "RMs over-value frequent words: scores rise with word frequency in almost all "
          "models and prompts.", FACCT_ABSTRACT + " (iv)", ("mere_exposure",),
          "published dictionary-word scores; frequency by exact BNC form, BNC lemma totals and wordfreq", "RMs",
          "per RM and prompt valence, the frequency slope pooled over prompts (valence held fixed) with a "
          "word-clustered CI; each frequency matching", facct.exposure),
    Claim("identity_terms", FACCT, "RMs can encode biases toward identity groups, possibly as a side effect of "
          "harmlessness training.", FACCT_ABSTRACT, ("identity_terms",),
          "published EloEverything scores of identity items vs human Elo", "identity items",
          "RM percentile − human percentile, minus the gap expected at the item's human rank, bootstrap interval "
          "over RMs", facct.identity),
    Claim("misalignment_themes", FACCT, "Compared with human ratings, RMs undervalue concepts related to nature, "
          "life, technology and human sexuality.", "FAccT 2025, EloEverything section", ("elo_misalignment",),
          "published EloEverything scores of 10 RMs vs human Elo; WordNet topics", "items",
          "per prompt, permutation test over items (within human-rank bins) of each theme among the 10% most "
          "undervalued, FDR across themes × prompts", facct.themes),
    Claim("love_freedom", FACCT, "RMs from one developer and one data set differ at the top: R-Gem-2B's best "
          "answer to 'the greatest thing ever' is LOVE, R-Lla-3B's is freedom.",
          "FAccT 2025, optimal tokens (figure 1); the ICLR paper's figure 3 contrasts the same two words",
          ("big_two",), "published scores of the Big Two nouns under 'What, in one word, is the greatest thing "
          "ever?' (whole words, not the single tokens of the paper)", "the two named RMs",
          "rank of each word among the dictionary words", facct.love_freedom),
    Claim("big_two", ICLR, "Llama-based RMs prefer agency words, Gemma-based RMs communion words.",
          ICLR_ABSTRACT, ("big_two",), "published scores of the 10 RMs for the Big Two nouns, 54 prompts",
          "RMs (4 Gemma vs 6 Llama)", "permutation Welch test per category × valence panel, models as replicates, "
          "FDR across panels (the authors: Bonferroni)", iclr.big_two),
    Claim("mfd2", ICLR, "RMs differ by base model along several moral foundations.", ICLR_ABSTRACT
          + " ('multiple dimensions of human value')", ("moral_foundations",),
          "published scores of the 10 RMs for the MFD2 terms, 54 prompts", "RMs",
          f"permutation tests per foundation × valence panel (virtue and vice pooled, as the authors do), models as "
          f"replicates, FDR; holds with at least {MULTIPLE} foundations that have a significant panel", iclr.mfd2),
    Claim("three_way", ICLR, "The family difference depends on the category and on the prompt's valence (a "
          "family × category × valence interaction).", "ICLR 2026 main text; the authors' "
          "figures/generate_figure_1_and_A1.R fits lme(median rank ~ base_model*Category*prompt_framing, "
          "random = ~1|model_id)", ("big_two",), "published Big Two median ranks per RM × prompt × category",
          "RMs (4 Gemma vs 6 Llama), one interaction contrast per model",
          "exact permutation Welch test between the families of each model's (Agency − Communion median rank) "
          "under positive minus under negative prompts; the authors' mixed model, which counts prompts as "
          "replicates, is shown as context", iclr.three_way),
    Claim("implicit_rewards", ICLR, "Log-probability differences between instruction-tuned and pretrained LMs "
          "form implicit RMs that show the same agency/communion difference.", ICLR_ABSTRACT,
          ("implicit_rewards",), "embedded LMs only (the paper's LMs are not available here)", "words",
          "permutation Welch test of Agency vs Communion ranks under each implicit reward, FDR", iclr.implicit),
    Claim("ablations", ICLR, "The base-model difference holds when the preference data and fine-tuning are "
          "identical.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files (rank_results_*.csv) and RMs trained here from the embedded bases",
          "training runs", "order of the families' gaps at the final checkpoint; one-way ANOVA of the gap on the "
          "base across seeds", iclr.ablation),
    Claim("durability", ICLR, "The effect is repeatable and durable: as training and preference data grow, RMs "
          "keep their base family's ordering.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files; RMs trained here (seeds)", "checkpoints; seeds",
          "the claimed order (Llama below Gemma) at each checkpoint; pairwise flips; Kendall's W across seeds",
          iclr.durability),
    Claim("accuracy_not_speed", RAZIN, "Accuracy alone does not determine how fast a reward model teaches: a more "
          "accurate RM can be a worse teacher.", RAZIN_PAPER, (TEACHING,),
          "published EloEverything scores of the 10 RMs with human Elo as the ground truth; exact policy-gradient "
          "dynamics", "pairs of RMs under one π_0", "existence of a pair where the more accurate RM gains less "
          "E[r*] after the chapter's GAIN_STEPS steps", teaching.accuracy_speed),
    Claim("low_variance_slow", RAZIN, "An RM that gives the policy's own responses low reward variance teaches "
          "slowly, however accurate: variance under the initial policy predicts teaching speed.", RAZIN_PAPER,
          (TEACHING,), "as above, under each non-uniform π_0 (under a uniform one every standardised RM has "
          "variance 1)", "RMs", "Spearman ρ across RMs with a bootstrap over RMs, per π_0; share rule over the "
          "π_0", teaching.variance_speed),
    *implicit_explicit_claims(RAZIN),
]


def source_chapters() -> list[str]:
    """Every chapter whose results the claims page reads, in book order of first use."""
    return list(dict.fromkeys(c for claim in CLAIMS for c in claim.chapters))


def load_evidence(results_dir: str | os.PathLike, say: Say | None = None,
                  chapters: list[str] | None = None) -> Evidence:
    """Read every source chapter's typed results from ``results_dir`` (a missing, old or foreign file becomes a
    reason, not an error, so the page still shows what can be shown); ``say`` words the evidence (:class:`Evidence`).
    ``chapters``: only these (a chapter judging its own claims reads nothing else)."""
    results, reasons = {}, {}
    for name in (source_chapters() if chapters is None else chapters):
        try:
            results[name] = read_results(name, results_dir, result_type(name))
        except ResultsError as err:
            results[name], reasons[name] = None, str(err)
    return Evidence(results, reasons, say=say)


def chapter_claims(chapter: str) -> list[Claim]:
    """The claims that ``chapter``'s results test, in catalogue order (none for a chapter the claims page does not
    read)."""
    return [c for c in CLAIMS if chapter in c.chapters]


def judge(claim: Claim, evidence: Evidence) -> list[Part]:
    """The claim's parts, each with its uncorrected ``outcome`` and its ``controlled`` one: the claim judged a second
    time under the page's error control (:func:`~rmbook.chapters.claims.rules.under_control`), with the raw p of its
    counted parts' tests Holm-adjusted together."""
    parts = claim.evaluate(evidence)
    holm = holm_adjusted([p_ for p in parts if not p.context for p_ in p.tests])
    with under_control(holm):
        controlled = claim.evaluate(evidence)
    for part, under in zip(parts, controlled, strict=True):
        part.controlled = under.outcome
    return parts


def claims_table(evidence: Evidence, claims: list[Claim] | None = None) -> tuple[pd.DataFrame, dict[str, list[Part]]]:
    """One row per claim (paper, claim, stated_in, chapters, data, unit, test, evidence, verdict, lean (which way a
    'partly' leans, :func:`~rmbook.chapters.claims.rules.partly_lean`; empty for any other verdict),
    verdict_controlled and lean_controlled (the same under the page's error control, :func:`judge`), support
    (reproduction, replication or both: :func:`~rmbook.chapters.claims.rules.support_of`), reason, and
    attainable_p: the smallest p that the tests behind the counted parts could give at this number of units, None
    when no part rests on such a test) and the parts of each claim, with the references of every number used.
    ``claims``: only these (default: the whole catalogue)."""
    rows, parts = [], {}
    for c in (CLAIMS if claims is None else claims):
        ps = judge(c, evidence)
        v, why = verdict(ps)
        under = [dataclasses.replace(p, outcome=p.controlled) for p in ps]
        vc = verdict(under)[0]
        parts[c.key] = ps
        floors = [p.floor for p in ps if p.floor is not None and not p.context and p.outcome != "untestable"]
        rows.append({"key": c.key, "paper": c.paper, "claim": c.claim, "stated_in": c.stated_in,
                     "chapter": ", ".join(c.chapters), "data": c.data, "unit": c.unit, "test": c.test,
                     "evidence": evidence.words(said("evidence_cell", parts=[
                         {"name": p.name, "evidence": p.evidence, "outcome": p.outcome, "context": p.context}
                         for p in ps])),
                     "verdict": v, "lean": partly_lean(ps) if v == "partly" else "",
                     "support": support_of(ps), "verdict_controlled": vc, "lean_controlled": partly_lean(under) if vc == "partly" else "",
                     "reason": evidence.words(why), "attainable_p": min(floors) if floors else None})
    return pd.DataFrame(rows), parts
