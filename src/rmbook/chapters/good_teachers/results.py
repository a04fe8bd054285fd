"""The good_teachers chapter's results: for each setting (the published RMs on EloEverything, or models computed
here on a vocabulary), how fast each proxy RM teaches a policy from each initial policy π_0 (the gain in the ground
truth after a fixed number of policy-gradient steps) against its accuracy and its reward variance under π_0; the
rank correlations of those predictors with the speed, the more-accurate-yet-slower RM pairs, the replication block
the claims page judges (Razin et al. 2025), and the theory's planted case. Each section is built where the chapter
computes it, and its sentences are rendered from it (``rmbook/chapters/good_teachers/prose.md.j2``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.good_teachers.dynamics import effective_size
from rmbook.chapters.good_teachers.stats import ACCURACY_MARGIN
from rmbook.chapters.good_teachers.types import (Parameters, Run, Setup, VarianceRange, SettingSummary, Accuracy,
                                                 SpeedUnder, Speed, Correlation, PredictorVerdicts, Verdicts,
                                                 SlowerUnder, Slower, VarianceExplains, StratumRho, Replication,
                                                 PlantedRM, Planted, ComputeProxy, Compute, GoodTeachersResults)

__all__ = ["Parameters", "Run", "Setup", "VarianceRange", "SettingSummary", "Accuracy", "SpeedUnder", "Speed",
           "Correlation", "PredictorVerdicts", "Verdicts", "SlowerUnder", "Slower", "VarianceExplains", "StratumRho",
           "Replication", "PlantedRM", "Planted", "ComputeProxy", "Compute", "GoodTeachersResults", "run", "setup",
           "setting_summary", "accuracy", "speed", "verdicts", "slower", "replication", "planted", "compute",
           "chapter_results"]


def run(mode: str, settings: dict, absent: dict) -> Run:
    return Run(mode=mode, absent=absent, compute_ran="compute" in settings)


def setup(settings: dict, top_rm_given: bool, top_shown: bool) -> Setup:
    shown = "published" in settings and top_shown
    return Setup(top_rm=settings["published"].notes["top_rm"] if shown else None, top_rm_given=top_rm_given)


def setting_summary(name: str, setting, tab: pd.DataFrame) -> SettingSummary:
    """The section of one setting and its :func:`rmbook.chapters.good_teachers.analysis.teaching_table`."""
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
    """:func:`rmbook.chapters.good_teachers.stats.replication`'s block with what its sentences need: part (1) needs a
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
    """The section of :func:`rmbook.chapters.good_teachers.settings.planted_case`'s table."""
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
    :class:`rmbook.chapters.good_teachers.settings.Setting`; the other dicts are keyed by setting name)."""
    return GoodTeachersResults(
        settings=list(settings), parameters=parameters, overview=overview, tables=tables,
        correlations=correlations, verdicts=verdicts_,
        slower_but_more_accurate=slower_pairs, replication=replication_,
        n_slower_but_more_accurate_pi0_pairs={name: len(p) for name, p in slower_pi0.items()}, planted=planted_table,
        top_rm=settings["published"].notes["top_rm"] if "published" in settings else None,
        compute_coverage=settings["compute"].notes["coverage"] if "compute" in settings else None,
        run=run_, setup=setup_, accuracy=accuracy_, speed=speed_, verdict_lines=verdict_lines, slower=slower_,
        planted_case=planted_, compute=compute_)
