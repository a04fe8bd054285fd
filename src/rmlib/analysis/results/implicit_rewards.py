"""The implicit_rewards chapter's results: whether logits and log-probs rank tokens alike (within and across LMs),
how common the LMs' and the published RMs' favourite answers are (Zipf), and the Big Two and MFD2 word-category
contrasts on the LMs and on their implicit rewards (MWLR pseudo-models, DPO log-ratios), with the Gemma-vs-Llama
MWLR panel that the claims page judges."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis import implicit
from rmlib.storage import ChapterResults, Num, Section, Table

__all__ = ["FamilyPanel", "ValenceSummary", "ImplicitRewardsResults", "chapter_results"]


class FamilyPanel(Section):
    """One pseudo-model's Agency − Communion contrast (:func:`rmlib.analysis.implicit.family_panel`)."""

    model: str
    hedges_g: Num
    g_ci_low: Num
    g_ci_high: Num
    p_fdr: Num
    reject: bool


class ValenceSummary(Section):
    """Counts over the virtue-vs-vice panels (:func:`rmlib.analysis.implicit.valence_summary`)."""

    n_panels: int
    n_significant_fdr: int
    valence_consistent: int


class ImplicitRewardsResults(ChapterResults):
    CHAPTERS = ("implicit_rewards",)

    lms: list[str]
    instruct_evidence: Table  # model, family, verdict, chat_template_shipped
    within_min_tau: Num  # the lowest Kendall τ between logits and log-probs within one LM
    pooled_tau: Num  # the same over the top tokens of all LMs pooled
    zipf_lm_top: Num
    zipf_rm_top: Num
    big2: Table  # every Agency-vs-Communion panel (model × valence)
    mwlr_gemma_llama: FamilyPanel | None  # None unless exactly one Gemma−Llama MWLR panel
    mfd2: ValenceSummary


def chapter_results(lms, evidence: pd.DataFrame, within: pd.DataFrame, pooled_tau: float, zipf_lm_top: float,
                    zipf_rm_top: float, b2_tests: pd.DataFrame, b2_scores: pd.DataFrame,
                    mf_tests: pd.DataFrame) -> ImplicitRewardsResults:
    """The chapter's results from what its cells computed: the instruct evidence table, the logit/log-prob
    agreement, the Zipf means and the Big Two (tests and the scores they came from) and MFD2 contrasts."""
    return ImplicitRewardsResults(
        lms=list(lms),
        instruct_evidence=evidence[["model", "family", "verdict", "chat_template_shipped"]],
        within_min_tau=within["kendall_tau_logit_vs_logprob"].min(), pooled_tau=pooled_tau,
        zipf_lm_top=zipf_lm_top, zipf_rm_top=zipf_rm_top,
        big2=b2_tests.drop(columns=["group_a", "group_b"]),
        mwlr_gemma_llama=implicit.family_panel(b2_tests, b2_scores, "Gemma−Llama", "positive"),
        mfd2=implicit.valence_summary(mf_tests))
