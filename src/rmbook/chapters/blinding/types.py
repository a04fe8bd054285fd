"""Types only, no builders: the blinding chapter's results: per model, whether hiding or neutralising the identity
descriptor in a decision prompt shrinks the gap in P(yes) between descriptors, with bootstrap intervals, verdict
counts per condition, and what the RMs prefer. Each section is built where the chapter computes it, and its
sentences are rendered from it (``rmbook/chapters/blinding/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.blinding.results` builds
them and re-exports them)."""
from __future__ import annotations

from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Missing", "ExamplePrompt", "Setup", "Tokens", "Unusable", "Scoring", "Behaviour", "VerdictRow",
           "ModelVerdicts", "Backfire", "Verdicts", "Effect", "Effects", "Rms", "Point", "Points", "BlindingResults"]


class Missing(Record):
    """A requested model that could not be scored here, and why (the reason's first clause)."""

    model: str
    reason: str


class ExamplePrompt(Record):
    """One condition's prompt for the first template and descriptor."""

    condition: str  # the condition's label ("1 informed", ...)
    prompt: str


class Setup(Section):
    """What this run asks: the design's size, the models it could not score, and the conditions in its wording."""

    n_templates: int
    n_descriptors: int
    n_domains: int
    n_axes: int
    n_informed: int  # informed questions per model (templates x descriptors)
    n_prompts: int  # prompts per model with the other conditions (templates x (3 x descriptors + 1))
    domains: list[str]
    axes: list[str]
    dtype: str
    missing: dict[str, str]  # model id -> why it could not be scored here
    missing_reasons: list[Missing]
    first_article: str  # the first template's article and noun ("an applicant"), for the blinded replica
    first_noun: str
    ignore_instruction: str  # the design's instruction to ignore, filled in for the first template and axis
    replica_note: str  # the design's note of the replica's answer, filled in likewise (answer: the first, p: "…")
    examples: list[ExamplePrompt]  # conditions 1-3 of the first template and descriptor


class Tokens(Section):
    """How each model tokenises the answers: which read P(yes) from one token per answer."""

    table: Table  # rmbook.chapters.blinding.scores.answer_tokens_many
    answers: list[str]
    one_token: list[str]  # models whose answers are one token each
    several_tokens: list[str]  # models for which an answer takes several tokens


class Unusable(Record):
    model: str
    mean_mass: Num  # mean p(Yes) + p(No) on the blinded prompts


class Scoring(Section):
    """Which scored models were left out as unusable, and one condition-4 prompt in full."""

    unusable: list[Unusable]
    example_model: str | None  # None when no model is usable
    example_template: str | None
    example_prompt: str | None


class Behaviour(Section):
    """How each model answers (:func:`rmbook.chapters.blinding.analysis.behaviour`), one row per model."""

    table: Table


class VerdictRow(Record):
    """One condition's change of the gap against informed, mean over axes (a row of disparity()['change'])."""

    condition: str
    informed: Num
    value: Num
    reduction: Num
    ci_low: Num
    ci_high: Num
    verdict: str


class ModelVerdicts(Record):
    model: str
    rows: list[VerdictRow]


class Backfire(Record):
    """A single axis on which telling the model to ignore the attribute reliably increases the gap."""

    model: str
    axis: str
    informed: Num
    value: Num


class Verdicts(Section):
    """The verdicts per model and their tally over models (:func:`rmbook.chapters.blinding.analysis.verdict_counts`)."""

    per_model: list[ModelVerdicts]
    n_models: int
    counts: dict[str, dict[str, int]]  # told_to_ignore / counterfactual -> every verdict -> number of models
    backfires: list[Backfire]
    n_axis_cells: int  # model x axis cells of the instruction


class Effect(Record):
    model: str
    descriptor: str
    effect: Num
    ci_low: Num
    ci_high: Num


class Effects(Section):
    """What knowing a descriptor does, and its largest effect per model in condition 1."""

    table: Table  # disparity()['effects']
    largest: list[Effect]  # per model, the informed effect of largest size


class Rms(Section):
    """The reward models' preferred answers (:func:`rmbook.chapters.blinding.analysis.rm_preferences`)."""

    table: Table
    models: list[str]  # the RMs scored, in order


class Point(Record):
    """The paper's points for one model (a row of :func:`rmbook.chapters.blinding.analysis.paper_points`)."""

    model: str
    instruction: str | None
    replica: str | None
    replica_vs_instruction: str | None
    responsive: bool | None
    copies_replica: bool | None
    defies_replica: bool | None = None
    instruction_point_replicates: bool | None
    replica_point_replicates: bool | None


class Points(Section):
    rows: list[Point]
    min_template_sd: float
    copy_share: float
    n_judged: int  # models with a verdict on the instruction
    n_instruction_replicates: int
    n_replica_replicates: int


class BlindingResults(ChapterResults):
    CHAPTERS = ("blinding",)
    SCHEMA_VERSION = 2  # 2: the prose's sections (setup, tokens, scoring, behaviour, verdicts, effects, rms, points)

    models: list[str]
    setup: Setup
    usable: dict[str, bool]
    mean_mass: dict[str, Num]  # mean p(Yes) + p(No) on the blinded prompts (None for RMs)
    reward_kinds: dict[str, str]
    tokens: Tokens
    scoring: Scoring
    behaviour: Behaviour
    disparity: Table  # the largest gap between descriptors, per model, condition and axis
    change: Table
    effects: Effects
    verdicts: Verdicts
    contrast: Table
    points: Points
    rms: Rms
    summary: Table  # the gap over all axes, per model and condition, with its change and verdict
    counterfactual_examples: Table
