"""The good_teachers chapter's sentences: what was compared, which RM teaches fastest, and whether Razin et al.'s
claim replicates. Each function takes what :mod:`rmlib.analysis.teaching` (``dynamics``, ``stats``) returned."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib.analysis.teaching.dynamics import effective_size
from rmlib.analysis.teaching.stats import ACCURACY_MARGIN

__all__ = ["absent_markdown", "setup_markdown", "accuracy_markdown", "speed_markdown", "verdict_markdown",
           "slower_markdown", "replication_markdown", "planted_markdown", "compute_markdown"]


def absent_markdown(absent: dict, compute_ran: bool) -> str:
    """Which models could not be loaded, and whether compute mode went ahead without them."""
    return ("**Absent models:** " + "; ".join(f"`{m}`: {why}" for m, why in absent.items()) + ". "
            + ("The compute-mode analysis uses the models that are present." if compute_ran else
               "**The compute-mode analysis is skipped** (it needs the policy, the ground truth and at least one "
               "proxy).")
            + " A `local:` RM exists only after the finetuning chapter has trained it: run `make book`, or "
              "`make chapter NB=finetuning`, first.")


def setup_markdown(settings: dict, *, kl_coef: float, lr: float, steps: int, gain_steps: int, gain_target: float,
                   subset_size: int, top_rm_given: bool, top_shown: bool) -> str:
    """β, the learning rate, the speed measures, and which RM the *top* π_0 holds."""
    return (f"β = {kl_coef:g}, LR = {lr:g} per effective item, {steps} steps; teaching speed is the gain after "
            f"{gain_steps} steps and the steps to a gain of {gain_target:g} sd of r*. "
            + (f"The *top* π_0 of the published setting holds the top {subset_size} items of "
               f"**{settings['published'].notes['top_rm']}**"
               + (" (the most accurate RM over uniform pairs)." if not top_rm_given else ".")
               if "published" in settings and top_shown else ""))


def accuracy_markdown(tables: dict, sampled_gap: float, n_sampled_pairs: int) -> str:
    """The range of accuracy and of variance per setting, and how close sampled pairs come to the exact accuracy."""
    lines = []
    for name, tab in tables.items():
        acc = tab.drop_duplicates("model").set_index("model")["accuracy_uniform"]
        spread = tab.groupby("pi0", sort=False)["variance_pi0"].agg(["min", "max"])
        lines.append(f"**{name}**: accuracy over uniform pairs runs from {acc.min():.3f} ({acc.idxmin()}) to "
                     f"{acc.max():.3f} ({acc.idxmax()}); the variance under each π_0 runs "
                     + "; ".join(f"{lo:.2f} to {hi:.2f} under *{p}*" for p, (lo, hi) in spread.iterrows()) + ".")
    return ("\n\n".join(lines) + f"\n\nDrawing {n_sampled_pairs:,} pairs from π_0 instead, as a benchmark would, gives "
            f"accuracies within {sampled_gap:.3f} of the exact values (the standard error of such an estimate is "
            f"about {0.5 / np.sqrt(n_sampled_pairs):.3f}).")


def speed_markdown(name: str, tab: pd.DataFrame, *, gain_steps: int, gain_target: float, steps: int) -> str:
    """Per π_0 the fastest and slowest teacher, how many never reach the target, and whether J always rose."""
    lines = []
    for p, g in tab.groupby("pi0", sort=False):
        fast, slow = g.loc[g["gain_T"].idxmax()], g.loc[g["gain_T"].idxmin()]
        missed = int(g["steps_to_target"].isna().sum())
        lines.append(f"under *{p}*, {fast.model} teaches fastest (gain {fast.gain_T:.3f} after {gain_steps} steps) "
                     f"and {slow.model} slowest ({slow.gain_T:.3f}); "
                     + (f"{missed} of {len(g)} RMs never reach a gain of {gain_target:g} within {steps} steps"
                        if missed else f"all reach a gain of {gain_target:g} within {steps} steps"))
    worst = float(tab["objective_min_increase"].min())
    return (f"**{name}**: " + "; ".join(lines) + ". The objective J rose at every step of every run "
            + ("(as gradient ascent should)." if worst >= -1e-9 else
               f"**except** for a fall of {-worst:.2g}: the sub-steps are too coarse here."))


def verdict_markdown(name: str, verdicts: pd.DataFrame, gain_steps: int) -> str:
    """One bullet per predictor: ρ with its interval and verdict under each π_0 and pooled."""
    lines = [f"- **{pred}**: " + "; ".join(
        f"{'pooled over the π_0' if r.stratum == 'pooled' else f'under *{r.stratum}*'} ρ = {r.rho:+.2f} "
        f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}] ({r.verdict})" for r in rows.itertuples()) + "."
        for pred, rows in verdicts.groupby("predictor", sort=False)]
    return f"**{name}**, gain after {gain_steps} steps:\n\n" + "\n".join(lines)


def slower_markdown(pairs: pd.DataFrame, counts: pd.DataFrame, n_pi0_pairs: int,
                    margin: float = ACCURACY_MARGIN) -> str:
    """How many RM pairs defy accuracy, how many by more than the accuracy margin, how many of those the variance
    explains under each π_0 (``counts``: :func:`rmlib.analysis.teaching.stats.slower_counts`; under a uniform π_0
    every variance is 1, so none), and the same judged on π_0 pairs."""
    n_margin = int((pairs["accuracy_gap"] > margin).sum())
    per = "; ".join(f"{int(r['... with lower variance'])} of {int(r['more accurate, slower'])} under *{p}*"
                    for p, r in counts.iterrows())
    return (f"In {len(pairs)} of {int(counts['RM pairs'].sum())} RM pairs (over all π_0) the more accurate RM teaches "
            f"more slowly; in {n_margin} of them its accuracy lead exceeds {margin:g} (a smaller lead is within what a "
            f"benchmark's sampled pairs could show). In {int(pairs['lower_variance'].sum())} of the {len(pairs)} the "
            f"slower RM also has the lower variance under π_0, the explanation the theory gives: {per}"
            + (" (under a uniform π_0 every variance is 1, so the mechanism can explain none there)"
               if "uniform" in counts.index else "")
            + f". Judged by accuracy over π_0's own pairs instead, there are {n_pi0_pairs} such pairs.")


def _rho_text(per: pd.DataFrame, predictor: str, stratum: str) -> str:
    """'ρ = −0.71 [−0.99, −0.03]' for one predictor under one π_0."""
    r = per[(per["predictor"] == predictor) & (per["stratum"] == stratum)].iloc[0]
    return f"ρ = {r.rho:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}]"


def _variance_part(rep: dict, per: pd.DataFrame, n_var: int) -> str:
    """Part (2) from each π_0's verdict: replicates (interval above 0), **reversed** (interval below 0: the
    higher-variance RMs teach more slowly, the opposite of the claim) or not established (interval spans 0)."""
    yes, rev = rep["variance_predicts_under"], rep.get("variance_reversed_under", [])
    unclear = rep.get("variance_not_established_under",
                      [s for s in rep["variance_does_not_predict_under"] if s not in rev])
    if n_var and len(yes) == n_var:
        return "part (2) **replicates** under every one."
    bits = []
    if yes:
        bits.append("**replicates** under " + ", ".join(f"{s} ({_rho_text(per, 'variance_pi0', s)})" for s in yes))
    if rev:
        bits.append("is **reversed** under " + ", ".join(f"{s} ({_rho_text(per, 'variance_pi0', s)}, the whole "
                                                         "interval below 0: the higher-variance RMs teach more "
                                                         "slowly)" for s in rev))
    if unclear:
        bits.append("is **not established** under " + ", ".join(
            f"{s} ({_rho_text(per, 'variance_pi0', s)}, an interval spanning 0)" for s in unclear))
    return "part (2) " + "; it ".join(bits) + "." if bits else "part (2) cannot be judged (no non-uniform π_0)."


def replication_markdown(name: str, rep: dict, correlations: pd.DataFrame, outcome: str = "gain_T") -> str:
    """The verdict on both parts of the claim (:func:`rmlib.analysis.teaching.stats.replication`): part (1) needs a
    more-accurate-yet-slower pair whose accuracy lead exceeds the margin; part (2) is read from each π_0's verdict,
    so an interval below 0 is called reversed, not 'does not replicate'."""
    per = correlations[(correlations["outcome"] == outcome) & correlations["defined"]
                       & (correlations["stratum"] != "pooled")]
    n_acc = int((per["predictor"] == "accuracy_uniform").sum())
    n_var = int((per["predictor"] == "variance_pi0").sum())
    n_tail = int((per["predictor"] == "reward_max").sum())
    n_slow, acc_yes = rep["n_slower_more_accurate"], rep["accuracy_predicts_under"]
    n_margin, margin = rep["n_slower_more_accurate_margin"], rep["accuracy_margin"]
    var_yes = rep["variance_predicts_under"]
    part1 = ("**replicates**." if n_margin else
             f"**is not established** (every such pair's accuracy lead is within {margin:g})." if n_slow else
             "**does not replicate** (no such pair).")
    return (f"**{name}**: (1) in {n_slow} RM pairs the more accurate RM teaches more slowly, {n_margin} of them with "
            f"an accuracy lead above {margin:g}, and accuracy over uniform pairs predicts the gain under "
            f"{len(acc_yes)} of {n_acc} π_0" + (f" ({', '.join(acc_yes)})" if acc_yes else "") + f": part (1) {part1}"
            + f" (2) Variance under π_0 predicts the gain under {len(var_yes)} of {n_var} non-uniform π_0"
            + (f" ({', '.join(var_yes)})" if var_yes else "") + ": " + _variance_part(rep, per, n_var)
            + f" Exploratory: how far an RM's best response stands out (`reward_max`) predicts the gain under "
              f"{len(rep['reward_max_predicts_under'])} of {n_tail} π_0.")


def planted_markdown(table: pd.DataFrame, setting_name: str, *, gain_steps: int, kl_coef: float) -> str:
    """The perfectly accurate but flat RM against the noisy one: early speed and where each ascent ends."""
    pa, pn = table.set_index("model").loc["accurate"], table.set_index("model").loc["noisy"]
    return (f"On the {setting_name} responses, the perfectly accurate RM (accuracy {pa.accuracy_uniform:.3f}) has "
            f"variance {pa.variance_pi0:.4f} under this π_0 and gains {pa.gain_T:.3f} sd of r* in {gain_steps} steps; "
            f"the noisy RM (accuracy {pn.accuracy_uniform:.3f}) has variance {pn.variance_pi0:.3f} and gains "
            f"{pn.gain_T:.3f}. "
            + ("The less accurate RM teaches faster, as the theory says." if pn.gain_T > pa.gain_T else
               "**The less accurate RM does not teach faster here**: the effect does not show in this setting.")
            + f" At the KL optimum, where each ascent ends, the gains are {pa.eventual_gain:.3f} (accurate) and "
              f"{pn.eventual_gain:.3f} (noisy): "
            + ("the accurate RM leads further in the end, so it is slow, not wrong."
               if pa.eventual_gain > pn.eventual_gain else
               f"with β = {kl_coef:g} a reward that barely separates the policy's responses also moves the optimum "
               "little, so here the noisy RM is ahead at the end too."))


def compute_markdown(setting, tab: pd.DataFrame, gain_steps: int) -> str:
    """Compute mode: how much of the policy survives the vocabulary matching, and each proxy's accuracy, variance
    and speed from the policy's own π_0 and from a uniform one."""
    both = setting.notes["coverage"].iloc[-1]
    rows = []
    for m, g in tab.groupby("model", sort=False):
        pol, uni = g[g["pi0"] != "uniform"].iloc[0], g[g["pi0"] == "uniform"].iloc[0]
        rows.append(f"- **{m}** ({setting.kinds[m]}): accuracy {pol.accuracy_uniform:.3f} over uniform pairs and "
                    f"{pol.accuracy_pi0:.3f} over the policy's own pairs; variance {pol.variance_pi0:.3f} under the "
                    f"policy (1 under uniform). Gain after {gain_steps} steps: {pol.gain_T:.3f} from the policy's "
                    f"π_0, {uni.gain_T:.3f} from a uniform one; eventual gain {pol.eventual_gain:.3f} and "
                    f"{uni.eventual_gain:.3f}.")
    on_policy = tab[tab["pi0"] != "uniform"].set_index("model")
    fast = on_policy["gain_T"].idxmax()
    rows.append(f"\nFrom the policy's own π_0, **{fast}** teaches fastest of the {len(on_policy)} proxies; it "
                + ("has" if on_policy["variance_pi0"].idxmax() == fast else "does not have")
                + " the highest variance under the policy and "
                + ("has" if on_policy["accuracy_pi0"].idxmax() == fast else "does not have")
                + " the highest accuracy over the policy's pairs"
                + (" (with these proxies the two explanations cannot be told apart)."
                   if on_policy["variance_pi0"].idxmax() == on_policy["accuracy_pi0"].idxmax() else "."))
    return (f"The policy is **{setting.notes['policy']}**, r* is **{setting.truth_name}**. {len(setting.truth):,} "
            f"tokens are common to all models ({both.share_tokens:.0%} of the policy's non-special tokens), holding "
            f"{both.share_pi0_mass:.0%} of the policy's next-token probability; π_0 is renormalised over them, and its "
            f"effective number of tokens is {effective_size(next(iter(setting.pi0s.values()))):.1f}.\n\n"
            + "\n".join(rows))
