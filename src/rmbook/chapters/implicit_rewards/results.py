"""The implicit_rewards chapter's results: whether logits and log-probs rank tokens alike (within and across LMs),
how common the LMs' and the published RMs' favourite answers are (Zipf), and the Big Two and MFD2 word-category
contrasts on the LMs and on their implicit rewards (MWLR pseudo-models, DPO log-ratios), with the Gemma-vs-Llama
MWLR panel that the claims page judges. Each section is built where the chapter computes it, and its sentences are
rendered from it (``rmbook/chapters/implicit_rewards/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.implicit_rewards import analysis as implicit
from rmbook.chapters.implicit_rewards.types import (EvidenceLine, InstructEvidence, SweepHeading, LogitLogprob, Zipf,
                                                    DesignPrompts, LexiconScores, ContrastRow, Contrasts, FamilyPanel,
                                                    ValenceSummary, ImplicitRewardsResults)
from rmlib.data import design_prompts

__all__ = ["EvidenceLine", "InstructEvidence", "SweepHeading", "LogitLogprob", "Zipf", "DesignPrompts",
           "LexiconScores", "ContrastRow", "Contrasts", "FamilyPanel", "ValenceSummary", "ImplicitRewardsResults",
           "instruct_evidence", "sweep_heading", "logit_logprob", "zipf", "design", "lexicon_scores", "contrasts",
           "valence_summary", "chapter_results"]


def _present(x) -> str | None:
    """A field a sentence may mention, as text; None when missing (None or NaN, as a table read back gives it) or
    empty."""
    return None if x is None or (isinstance(x, float) and x != x) or x == "" else str(x)


def instruct_evidence(evidence: pd.DataFrame, both: list[str]) -> InstructEvidence:
    return InstructEvidence(families_with_both=both, lines=[
        EvidenceLine(model=r.model, family=r.family, verdict=r.verdict,
                     chat_template_shipped=_present(r.chat_template_shipped), gguf_name=_present(r.gguf_name),
                     gguf_finetune=_present(r.gguf_finetune),
                     registry_says=None if r.registry_says == "unknown" else _present(r.registry_says))
        for r in evidence.itertuples()])


def sweep_heading(model: str, prompt: str) -> SweepHeading:
    return SweepHeading(model=model, prompt=prompt)


def logit_logprob(within: pd.DataFrame, pooled_tau: float, n_models: int) -> LogitLogprob:
    return LogitLogprob(max_offset_spread=within["offset_spread"].max(),
                        min_tau=within["kendall_tau_logit_vs_logprob"].min(), pooled_tau=pooled_tau,
                        pooled_agree=bool(pooled_tau >= 0.999), n_models=n_models,
                        logsumexp_min=within["logsumexp"].min(), logsumexp_max=within["logsumexp"].max())


def zipf(prompt: str, lm_top: float, rm_top: float) -> Zipf:
    return Zipf(prompt=prompt, lm_top=lm_top, rm_top=rm_top)


def design(prompt_keys) -> DesignPrompts:
    """The section of the design prompts ``prompt_keys`` (:func:`rmlib.data.design_prompts`)."""
    p, n_design = design_prompts(prompt_keys), len(design_prompts())
    uniq = lambda s: list(dict.fromkeys(s))  # noqa: E731
    return DesignPrompts(n_prompts=len(p), n_design=n_design, subset=len(p) < n_design,
                         positive_adjectives=uniq(p.loc[p["valence"] == "positive", "adjective"]),
                         negative_adjectives=uniq(p.loc[p["valence"] == "negative", "adjective"]),
                         superlatives=uniq(p["superlative"]), phrasings=uniq(p["phrasing"]))


def lexicon_scores(dictionary: str, scores: pd.DataFrame, implicit_scores: pd.DataFrame, n_lms: int) -> LexiconScores:
    """The size of one lexicon's scores (words × prompts × LMs) and the implicit rewards built from them."""
    return LexiconScores(dictionary=dictionary, n_words=scores["word"].nunique(),
                         n_prompts=scores["prompt_key"].nunique(), n_lms=n_lms,
                         implicit_models=list(implicit_scores["model"].unique()))


def contrasts(tests: pd.DataFrame, a: str, b: str) -> Contrasts:
    """The section of :func:`rmbook.analysis.families.word_contrast`'s panels: which group ranks higher in each."""
    return Contrasts(a=a, b=b, rows=[
        ContrastRow(**{k: r[k] for k in ("model", "reward_kind", "valence", "mean_a", "mean_b", "hedges_g",
                                         "g_ci_low", "g_ci_high", "p_fdr", "reject")},
                    higher=a if r["mean_a"] < r["mean_b"] else b) for r in tests.to_dict("records")])


def valence_summary(tests: pd.DataFrame) -> ValenceSummary:
    """:func:`rmbook.chapters.implicit_rewards.analysis.valence_summary` with its counts per valence."""
    pos, neg = tests[tests["valence"] == "positive"], tests[tests["valence"] == "negative"]
    return ValenceSummary(**implicit.valence_summary(tests), n_positive=len(pos),
                          n_positive_consistent=int((pos["hedges_g"] < 0).sum()), n_negative=len(neg),
                          n_negative_consistent=int((neg["hedges_g"] > 0).sum()))


def chapter_results(lms, evidence: pd.DataFrame, b2_tests: pd.DataFrame, b2_scores: pd.DataFrame, *,
                    evidence_: InstructEvidence, sweep_headings: list, logits: LogitLogprob, zipf_: Zipf,
                    design_: DesignPrompts, lexicons: dict, big2_contrasts: Contrasts,
                    mfd2: ValenceSummary) -> ImplicitRewardsResults:
    """The chapter's results from what its cells computed: the instruct evidence table, the Big Two (tests and the
    scores they came from) and MFD2 contrasts, and the sections its sentences were rendered from (the within-LM and
    pooled logit/log-prob agreement in ``logits``, the Zipf means in ``zipf_``)."""
    return ImplicitRewardsResults(
        lms=list(lms),
        instruct_evidence=evidence[["model", "family", "verdict", "chat_template_shipped"]],
        big2=b2_tests.drop(columns=["group_a", "group_b"]),
        mwlr_gemma_llama=implicit.family_panel(b2_tests, b2_scores, "Gemma−Llama", "positive"),
        mfd2=mfd2, evidence=evidence_, sweep_headings=sweep_headings, logits=logits, zipf=zipf_, design=design_,
        lexicons=lexicons, big2_contrasts=big2_contrasts)
