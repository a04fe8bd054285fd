"""Types only, no builders: the implicit_rewards chapter's results: whether logits and log-probs rank tokens alike
(within and across LMs), how common the LMs' and the published RMs' favourite answers are (Zipf), and the Big Two
and MFD2 word-category contrasts on the LMs and on their implicit rewards (MWLR pseudo-models, DPO log-ratios), with
the Gemma-vs-Llama MWLR panel that the claims page judges. Each section is built where the chapter computes it, and
its sentences are rendered from it (``rmbook/chapters/implicit_rewards/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.implicit_rewards.results`
builds them and re-exports them)."""
from __future__ import annotations

from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["EvidenceLine", "InstructEvidence", "SweepHeading", "LogitLogprob", "Zipf", "DesignPrompts", "LexiconScores",
           "ContrastRow", "Contrasts", "FamilyPanel", "ValenceSummary", "ImplicitRewardsResults"]


class EvidenceLine(Record):
    """One model's base/instruct verdict and the evidence shown for it (None: not known, left out)."""

    model: str
    family: str
    verdict: str
    chat_template_shipped: str | None
    gguf_name: str | None
    gguf_finetune: str | None
    registry_says: str | None  # None when the registry does not say


class InstructEvidence(Section):
    """Which LMs are base or instruct (:func:`rmlib.models.instruct_evidence`), and the families with both kinds
    (:func:`rmbook.chapters.implicit_rewards.analysis.families_with_base_and_instruct`)."""

    lines: list[EvidenceLine]
    families_with_both: list[str]


class SweepHeading(Section):
    model: str
    prompt: str


class LogitLogprob(Section):
    """Logits vs log-probs within each LM × prompt (:func:`implicit.logit_logprob_agreement`) and pooled."""

    max_offset_spread: float
    min_tau: float
    pooled_tau: Num
    pooled_agree: bool  # pooled τ ≥ 0.999
    n_models: int
    logsumexp_min: float
    logsumexp_max: float


class Zipf(Section):
    prompt: str
    lm_top: Num  # mean Zipf frequency of the LMs' top first tokens
    rm_top: Num  # ... of the published RMs' top answers


class DesignPrompts(Section):
    """The design prompts the lexicon scores use, by factor."""

    n_prompts: int
    n_design: int  # prompts in the full design
    subset: bool  # n_prompts < n_design
    positive_adjectives: list[str]
    negative_adjectives: list[str]
    superlatives: list[str]
    phrasings: list[str]


class LexiconScores(Section):
    dictionary: str
    n_words: int
    n_prompts: int
    n_lms: int
    implicit_models: list[str]


class ContrastRow(Record):
    """One panel of :func:`rmbook.analysis.families.word_contrast`, with the group that ranks higher."""

    model: str
    reward_kind: str
    valence: str
    higher: str
    mean_a: Num
    mean_b: Num
    hedges_g: Num
    g_ci_low: Num
    g_ci_high: Num
    p_fdr: Num
    reject: bool


class Contrasts(Section):
    a: str
    b: str
    rows: list[ContrastRow]


class FamilyPanel(Section):
    """One pseudo-model's Agency − Communion contrast
    (:func:`rmbook.chapters.implicit_rewards.analysis.family_panel`)."""

    model: str
    hedges_g: Num
    g_ci_low: Num
    g_ci_high: Num
    p_fdr: Num
    reject: bool


class ValenceSummary(Section):
    """Counts over the virtue-vs-vice panels (:func:`rmbook.chapters.implicit_rewards.analysis.valence_summary`), and
    per valence."""

    n_panels: int
    n_significant_fdr: int
    valence_consistent: int
    n_positive: int
    n_positive_consistent: int  # g < 0 under positive prompts
    n_negative: int
    n_negative_consistent: int  # g > 0 under negative prompts


class ImplicitRewardsResults(ChapterResults):
    CHAPTERS = ("implicit_rewards",)
    SCHEMA_VERSION = 4  # 2: the sections the sentences are rendered from (evidence, logits, ...) added; mfd2 per valence
    # 3: the flat copies go (within_min_tau -> logits.min_tau, zipf_lm_top, zipf_rm_top -> zipf.lm_top, zipf.rm_top)
    # 4: and pooled_tau -> logits.pooled_tau

    lms: list[str]
    instruct_evidence: Table  # model, family, verdict, chat_template_shipped
    big2: Table  # every Agency-vs-Communion panel (model × valence)
    mwlr_gemma_llama: FamilyPanel | None  # None unless exactly one Gemma−Llama MWLR panel
    mfd2: ValenceSummary
    evidence: InstructEvidence
    sweep_headings: list[SweepHeading]
    logits: LogitLogprob
    zipf: Zipf
    design: DesignPrompts
    lexicons: dict[str, LexiconScores]
    big2_contrasts: Contrasts
