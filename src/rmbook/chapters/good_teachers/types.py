"""Types only, no builders: the good_teachers chapter's results: for each setting (the published RMs on EloEverything,
or models computed here on a vocabulary), how fast each proxy RM teaches a policy from each initial policy π_0 (the
gain in the ground truth after a fixed number of policy-gradient steps) against its accuracy and its reward variance
under π_0; the rank correlations of those predictors with the speed, the more-accurate-yet-slower RM pairs, the
replication block the claims page judges (Razin et al. 2025), and the theory's planted case. Each section is built
where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/good_teachers/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.good_teachers.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import ANY_MODE
from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Parameters", "Run", "Setup", "VarianceRange", "SettingSummary", "Accuracy", "SpeedUnder", "Speed",
           "Correlation", "PredictorVerdicts", "Verdicts", "SlowerUnder", "Slower", "VarianceExplains", "StratumRho",
           "Replication", "PlantedRM", "Planted", "ComputeProxy", "Compute", "GoodTeachersResults"]


Setting = Literal["published", "compute"]


class Parameters(Section):
    """The optimisation and the π_0 the chapter ran with."""

    kl_coef: float
    lr: float
    steps: int
    gain_steps: int
    gain_target: float
    subset_size: int  # items a concentrated π_0 puts most of its mass on (the π_0 names carry it)
    subset_mass: float
    n_resamples: int
    seed: int


class Run(Section):
    """What ran: the mode, the models that could not be loaded (model -> why) and whether compute mode went ahead."""

    mode: Literal[ANY_MODE]
    absent: dict[str, str]
    compute_ran: bool


class Setup(Section):
    """Which RM the *top* π_0 of the published setting holds (None: not shown), and whether it was given."""

    top_rm: str | None  # None unless the published setting ran with a "top" π_0
    top_rm_given: bool


class VarianceRange(Record):
    pi0: str
    low: float
    high: float


class SettingSummary(Section):
    """One setting's size and the range of accuracy over uniform pairs and of variance under each π_0."""

    setting: str
    n_responses: int
    truth_name: str
    n_models: int
    accuracy_min: float
    accuracy_min_model: str
    accuracy_max: float
    accuracy_max_model: str
    variance: list[VarianceRange]  # per π_0, in the table's order


class Accuracy(Section):
    """Every setting's ranges, and how close accuracies over pairs sampled from π_0 come to the exact ones."""

    settings: list[SettingSummary]
    n_sampled_pairs: int
    sampled_gap: Num
    sampled_se: float  # the standard error of an accuracy estimated on n_sampled_pairs pairs (at most 0.5/√n)


class SpeedUnder(Record):
    """Under one π_0: the fastest and the slowest teacher, and how many never reach the target gain."""

    pi0: str
    fastest: str
    fastest_gain: float
    slowest: str
    slowest_gain: float
    n_missed: int
    n_models: int


class Speed(Section):
    setting: str
    under: list[SpeedUnder]
    objective_rose: bool  # J rose at every step of every run (up to 1e-9)
    objective_fall: float  # the largest fall of J in one step (0 when it always rose)


class Correlation(Record):
    """One Spearman ρ of a predictor with a speed outcome, per π_0 or pooled
    (:func:`rmbook.chapters.good_teachers.stats.rank_correlations`)."""

    predictor: str
    outcome: str
    stratum: str
    rho: Num
    ci_low: Num
    ci_high: Num
    verdict: str


class PredictorVerdicts(Section):
    predictor: str
    rows: list[Correlation]  # under each π_0, then pooled


class Verdicts(Section):
    """One setting's defined correlations with the gain, grouped by predictor (:func:`teaching_stats.gain_verdicts`)."""

    setting: str
    predictors: list[PredictorVerdicts]


class SlowerUnder(Record):
    pi0: str
    n_slower: int  # more accurate, yet slower
    n_lower_variance: int  # ... with the lower variance


class Slower(Section):
    """The more-accurate-yet-slower RM pairs of one setting (:func:`teaching_stats.slower_counts`)."""

    setting: str
    n_pairs: int
    n_rm_pairs: int  # over all π_0
    n_margin: int  # pairs whose accuracy lead exceeds the margin
    margin: float
    n_lower_variance: int
    under: list[SlowerUnder]
    has_uniform: bool  # a uniform π_0 is among them (every variance 1 there)
    n_pi0_pairs: int  # the same pairs judged by accuracy over π_0's own pairs


class VarianceExplains(Record):
    """Under one π_0: how many inversions the lower variance explains (:func:`teaching_stats.variance_explains`)."""

    pi0: str
    n_inversions: int
    n_inversions_margin: int
    n_lower_variance: int
    n_higher_variance: int  # the slower RM clearly has the higher variance: against the mechanism
    share: Num  # None without inversions


class StratumRho(Record):
    stratum: str
    rho: Num
    ci_low: Num
    ci_high: Num


class Replication(Section):
    """Razin et al.'s two-part claim judged on one setting (:func:`rmbook.chapters.good_teachers.stats.replication`),
    with what its sentences need: the π_0 counted and each variance verdict's ρ."""

    n_slower_more_accurate: int
    n_slower_more_accurate_margin: int
    accuracy_margin: float
    n_slower_lower_variance: int
    n_slower_higher_variance: int  # against the mechanism; the rest have equal variances (a uniform π_0)
    variance_explains: list[VarianceExplains]
    variance_predicts_under: list[str]
    variance_does_not_predict_under: list[str]
    variance_reversed_under: list[str]
    variance_not_established_under: list[str]
    accuracy_predicts_under: list[str]
    reward_max_predicts_under: list[str]
    setting: str
    n_accuracy_strata: int  # π_0 (not pooled) with a defined ρ for accuracy over uniform pairs
    n_variance_strata: int  # ... for variance under π_0
    n_reward_max_strata: int  # ... for reward_max
    n_accuracy_predicts: int  # len(accuracy_predicts_under)
    n_variance_predicts: int  # len(variance_predicts_under)
    n_reward_max_predicts: int  # len(reward_max_predicts_under)
    part1: Literal["replicates", "not established"]
    variance_everywhere: bool  # variance predicts under every non-uniform π_0 (and there is one)
    variance_replicates: list[StratumRho]
    variance_reversed: list[StratumRho]
    variance_unclear: list[StratumRho]


class PlantedRM(Record):
    """One planted RM of the theory's case (perfectly accurate but flat under π_0, or noisy)."""

    model: str
    gain_T: Num


class Planted(Section):
    """The perfectly accurate but flat RM against the noisy one
    (:func:`rmbook.chapters.good_teachers.settings.planted_case`)."""

    setting: str
    accurate_accuracy: float
    accurate_variance: float
    accurate_gain: float
    accurate_eventual: float
    noisy_accuracy: float
    noisy_variance: float
    noisy_gain: float
    noisy_eventual: float
    noisy_faster: bool
    accurate_ahead_at_end: bool


class ComputeProxy(Record):
    model: str
    kind: str
    accuracy_uniform: float
    accuracy_pi0: float
    variance_pi0: float
    gain_policy: float
    gain_uniform: float
    eventual_policy: float
    eventual_uniform: float


class Compute(Section):
    """Compute mode: how much of the policy survives the vocabulary matching, and each proxy from both π_0."""

    policy: str
    truth_name: str
    n_tokens: int  # tokens common to all models
    share_tokens: float
    share_pi0_mass: float
    n_eff: float  # effective number of tokens of the policy's π_0
    proxies: list[ComputeProxy]
    fastest: str  # from the policy's own π_0
    n_proxies: int
    fastest_top_variance: bool
    fastest_top_accuracy: bool
    confounded: bool  # the highest variance and the highest accuracy are the same proxy's


class GoodTeachersResults(ChapterResults):
    CHAPTERS = ("good_teachers",)
    SCHEMA_VERSION = 5  # 2: the sections the sentences are rendered from (run, setup, accuracy, ...); fields added
    # 3: the flat copies go (absent_models -> run.absent, sampled_accuracy_max_gap -> accuracy.sampled_gap)
    # 4: and mode -> run.mode; 5: the inversions against the variance mechanism (n_higher_variance) are counted

    settings: list[Setting]
    parameters: Parameters
    overview: Table
    tables: dict[Setting, Table]  # per setting: one row per RM and π_0 (accuracy, variance, speed)
    correlations: dict[Setting, list[Correlation]]  # settings with 3 or more RMs only
    verdicts: dict[Setting, Table]
    slower_but_more_accurate: dict[Setting, Table]
    replication: dict[Setting, Replication]
    n_slower_but_more_accurate_pi0_pairs: dict[Setting, int]
    planted: list[PlantedRM]
    top_rm: str | None  # the RM whose top items the "top" π_0 holds (published setting)
    compute_coverage: Table | None
    run: Run
    setup: Setup
    accuracy: Accuracy
    speed: dict[Setting, Speed]
    verdict_lines: dict[Setting, Verdicts]
    slower: dict[Setting, Slower]
    planted_case: Planted
    compute: Compute | None
