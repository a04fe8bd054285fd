"""The good_teachers chapter's results: for each setting (the published RMs on EloEverything, or models computed
here on a vocabulary), how fast each proxy RM teaches a policy from each initial policy π_0 (the gain in the ground
truth after a fixed number of policy-gradient steps) against its accuracy and its reward variance under π_0; the
rank correlations of those predictors with the speed, the more-accurate-yet-slower RM pairs, the replication block
the claims page judges (Razin et al. 2025), and the theory's planted case. Each section is built where the chapter
computes it, and its sentences are rendered from it (``rmlib/report/prose/templates/good_teachers.md.j2``)."""
from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from rmlib.analysis.teaching import settings as ts
from rmlib.analysis.teaching.dynamics import effective_size
from rmlib.analysis.teaching.stats import ACCURACY_MARGIN
from rmlib.storage import ChapterResults, Num, Record, Section, Table

__all__ = ["Parameters", "Run", "Setup", "VarianceRange", "SettingSummary", "Accuracy", "SpeedUnder", "Speed",
           "Correlation", "PredictorVerdicts", "Verdicts", "SlowerUnder", "Slower", "VarianceExplains", "StratumRho",
           "Replication", "PlantedRM", "Planted", "ComputeProxy", "Compute", "GoodTeachersResults", "run", "setup",
           "setting_summary", "accuracy", "speed", "verdicts", "slower", "replication", "planted", "compute",
           "chapter_results"]

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

    mode: Literal[ts.MODES]
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
    (:func:`rmlib.analysis.teaching.stats.rank_correlations`)."""

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
    """Razin et al.'s two-part claim judged on one setting (:func:`rmlib.analysis.teaching.stats.replication`), with
    what its sentences need: the π_0 counted and each variance verdict's ρ."""

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
    """The perfectly accurate but flat RM against the noisy one (:func:`rmlib.analysis.teaching.settings.planted_case`)."""

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


def run(mode: str, settings: dict, absent: dict) -> Run:
    return Run(mode=mode, absent=absent, compute_ran="compute" in settings)


def setup(settings: dict, top_rm_given: bool, top_shown: bool) -> Setup:
    shown = "published" in settings and top_shown
    return Setup(top_rm=settings["published"].notes["top_rm"] if shown else None, top_rm_given=top_rm_given)


def setting_summary(name: str, setting, tab: pd.DataFrame) -> SettingSummary:
    """The section of one setting and its :func:`rmlib.analysis.teaching.teaching_table`."""
    acc = tab.drop_duplicates("model").set_index("model")["accuracy_uniform"]
    spread = tab.groupby("pi0", sort=False)["variance_pi0"].agg(["min", "max"])
    return SettingSummary(setting=name, n_responses=len(setting.truth), truth_name=setting.truth_name,
                          n_models=tab["model"].nunique(), accuracy_min=acc.min(), accuracy_min_model=acc.idxmin(),
                          accuracy_max=acc.max(), accuracy_max_model=acc.idxmax(),
                          variance=[VarianceRange(pi0=p, low=lo, high=hi) for p, (lo, hi) in spread.iterrows()])


def accuracy(summaries: dict, sampled_gap: float, n_sampled_pairs: int) -> Accuracy:
    return Accuracy(settings=list(summaries.values()), n_sampled_pairs=n_sampled_pairs, sampled_gap=sampled_gap,
                    sampled_se=0.5 / np.sqrt(n_sampled_pairs))


def speed(name: str, tab: pd.DataFrame) -> Speed:
    under = []
    for p, g in tab.groupby("pi0", sort=False):
        fast, slow = g.loc[g["gain_T"].idxmax()], g.loc[g["gain_T"].idxmin()]
        under.append(SpeedUnder(pi0=p, fastest=fast.model, fastest_gain=fast.gain_T, slowest=slow.model,
                                slowest_gain=slow.gain_T, n_missed=int(g["steps_to_target"].isna().sum()),
                                n_models=len(g)))
    worst = float(tab["objective_min_increase"].min())
    return Speed(setting=name, under=under, objective_rose=worst >= -1e-9, objective_fall=max(0.0, -worst))


def verdicts(name: str, main: pd.DataFrame) -> Verdicts:
    """The section of :func:`teaching_stats.gain_verdicts`."""
    return Verdicts(setting=name, predictors=[
        PredictorVerdicts(predictor=p, rows=[Correlation(outcome="gain_T", **r) for r in g.to_dict("records")])
        for p, g in main.groupby("predictor", sort=False)])


def slower(name: str, pairs: pd.DataFrame, counts: pd.DataFrame, n_pi0_pairs: int,
           margin: float = ACCURACY_MARGIN) -> Slower:
    """The section of :func:`teaching_stats.slower_but_more_accurate` (``pairs``) and its ``slower_counts``."""
    return Slower(setting=name, n_pairs=len(pairs), n_rm_pairs=int(counts["RM pairs"].sum()),
                  n_margin=int((pairs["accuracy_gap"] > margin).sum()), margin=margin,
                  n_lower_variance=int(pairs["lower_variance"].sum()),
                  under=[SlowerUnder(pi0=p, n_slower=int(r["more accurate, slower"]),
                                     n_lower_variance=int(r["... with lower variance"])) for p, r in counts.iterrows()],
                  has_uniform="uniform" in counts.index, n_pi0_pairs=n_pi0_pairs)


def replication(name: str, rep: dict, correlations: pd.DataFrame, outcome: str = "gain_T") -> Replication:
    """:func:`rmlib.analysis.teaching.stats.replication`'s block with what its sentences need: part (1) needs a
    more-accurate-yet-slower pair whose accuracy lead exceeds the margin; part (2) is read from each π_0's verdict,
    so an interval below 0 is called reversed, not 'does not replicate'."""
    per = correlations[(correlations["outcome"] == outcome) & correlations["defined"]
                       & (correlations["stratum"] != "pooled")]
    var = per[per["predictor"] == "variance_pi0"].set_index("stratum")
    rhos = lambda strata: [StratumRho(stratum=s, rho=var.loc[s, "rho"], ci_low=var.loc[s, "ci_low"],  # noqa: E731
                                      ci_high=var.loc[s, "ci_high"]) for s in strata]
    n_var = int((per["predictor"] == "variance_pi0").sum())
    rev = rep.get("variance_reversed_under", [])
    unclear = rep.get("variance_not_established_under",
                      [s for s in rep["variance_does_not_predict_under"] if s not in rev])
    part1 = "replicates" if rep["n_slower_more_accurate_margin"] else "not established"  # existence: no pair ≠ none
    return Replication(**{**rep, "variance_reversed_under": rev, "variance_not_established_under": unclear},
                       setting=name, n_accuracy_strata=int((per["predictor"] == "accuracy_uniform").sum()),
                       n_variance_strata=n_var, n_reward_max_strata=int((per["predictor"] == "reward_max").sum()),
                       n_accuracy_predicts=len(rep["accuracy_predicts_under"]),
                       n_variance_predicts=len(rep["variance_predicts_under"]),
                       n_reward_max_predicts=len(rep["reward_max_predicts_under"]),
                       part1=part1, variance_everywhere=bool(n_var) and len(rep["variance_predicts_under"]) == n_var,
                       variance_replicates=rhos(rep["variance_predicts_under"]), variance_reversed=rhos(rev),
                       variance_unclear=rhos(unclear))


def planted(name: str, table: pd.DataFrame) -> Planted:
    """The section of :func:`rmlib.analysis.teaching.settings.planted_case`'s table."""
    pa, pn = table.set_index("model").loc["accurate"], table.set_index("model").loc["noisy"]
    return Planted(setting=name, accurate_accuracy=pa.accuracy_uniform, accurate_variance=pa.variance_pi0,
                   accurate_gain=pa.gain_T, accurate_eventual=pa.eventual_gain, noisy_accuracy=pn.accuracy_uniform,
                   noisy_variance=pn.variance_pi0, noisy_gain=pn.gain_T, noisy_eventual=pn.eventual_gain,
                   noisy_faster=pn.gain_T > pa.gain_T, accurate_ahead_at_end=pa.eventual_gain > pn.eventual_gain)


def compute(setting, tab: pd.DataFrame) -> Compute:
    """The section of the compute setting and its teaching table: the vocabulary matching, and each proxy from the
    policy's own π_0 and from a uniform one."""
    both = setting.notes["coverage"].iloc[-1]
    proxies = []
    for m, g in tab.groupby("model", sort=False):
        pol, uni = g[g["pi0"] != "uniform"].iloc[0], g[g["pi0"] == "uniform"].iloc[0]
        proxies.append(ComputeProxy(model=m, kind=setting.kinds[m], accuracy_uniform=pol.accuracy_uniform,
                                    accuracy_pi0=pol.accuracy_pi0, variance_pi0=pol.variance_pi0,
                                    gain_policy=pol.gain_T, gain_uniform=uni.gain_T,
                                    eventual_policy=pol.eventual_gain, eventual_uniform=uni.eventual_gain))
    on_policy = tab[tab["pi0"] != "uniform"].set_index("model")
    fast = on_policy["gain_T"].idxmax()
    top_var, top_acc = on_policy["variance_pi0"].idxmax(), on_policy["accuracy_pi0"].idxmax()
    return Compute(policy=setting.notes["policy"], truth_name=setting.truth_name, n_tokens=len(setting.truth),
                   share_tokens=both.share_tokens, share_pi0_mass=both.share_pi0_mass,
                   n_eff=effective_size(next(iter(setting.pi0s.values()))), proxies=proxies, fastest=fast,
                   n_proxies=len(on_policy), fastest_top_variance=top_var == fast, fastest_top_accuracy=top_acc == fast,
                   confounded=top_var == top_acc)


def chapter_results(settings: dict, parameters: Parameters, run_: Run, setup_: Setup, overview: pd.DataFrame,
                    tables: dict, accuracy_: Accuracy, correlations: dict, verdicts_: dict, verdict_lines: dict,
                    slower_pairs: dict, slower_: dict, replication_: dict, slower_pi0: dict, planted_table: pd.DataFrame,
                    planted_: Planted, speed_: dict, compute_: Compute | None) -> GoodTeachersResults:
    """The chapter's results from what its cells computed and its sections (settings: name ->
    :class:`rmlib.analysis.teaching.settings.Setting`; the other dicts are keyed by setting name)."""
    return GoodTeachersResults(
        settings=list(settings), parameters=parameters, overview=overview, tables=tables,
        correlations=correlations, verdicts=verdicts_,
        slower_but_more_accurate=slower_pairs, replication=replication_,
        n_slower_but_more_accurate_pi0_pairs={name: len(p) for name, p in slower_pi0.items()}, planted=planted_table,
        top_rm=settings["published"].notes["top_rm"] if "published" in settings else None,
        compute_coverage=settings["compute"].notes["coverage"] if "compute" in settings else None,
        run=run_, setup=setup_, accuracy=accuracy_, speed=speed_, verdict_lines=verdict_lines, slower=slower_,
        planted_case=planted_, compute=compute_)
