"""The implicit_vs_explicit chapter's sentences: how the two RMs were trained, how accurate each is per evaluation
set, how much each leans on surface tokens, whether DPO displaced the chosen response's likelihood, and whether the
published pattern replicates. Each function takes what :mod:`rmlib.analysis.implicit_explicit` returned."""
from __future__ import annotations

import pandas as pd

__all__ = ["training_markdown", "shift_markdown", "accuracy_markdown", "overlap_markdown", "displacement_markdown",
           "verdict_markdown"]


def _ci(row) -> str:
    return f"{row['ci_low']:.3f} to {row['ci_high']:.3f}"


def training_markdown(ex_run: dict, im_run: dict, ex_reused: bool, same_order: bool) -> str:
    """What both runs share (the data hash, the order), and whether the EX-RM came from the finetuning chapter."""
    same = ex_run["data_hash"] == im_run["data_hash"] and same_order
    return (f"Both RMs start from **{ex_run['base_model']}** and train on {ex_run['n_pairs']} pairs of "
            f"{', '.join(ex_run['sources'])} for {ex_run['steps']} steps of {ex_run['batch_size']} pairs "
            f"({ex_run['method']}, lr {ex_run['lr']:g}, {ex_run['max_len']} tokens, seed {ex_run['seed']}); "
            + ("their data hashes and their step-by-step data order are **identical**"
               if same else "**their data differ** (data hash or order), so the comparison below is not controlled")
            + f". The IM-RM's β is {im_run['beta']:g}. "
            + ("The EX-RM is the finetuning chapter's run of this very config (same hash), reused, not retrained."
               if ex_reused else "The EX-RM was trained here: no finished finetuning-chapter run of this config "
                                 "was in the cache (it is saved under that chapter's run name, so that chapter "
                                 "reuses it when its config is the same)."))


def shift_markdown(sets: pd.DataFrame, shifts: list[str]) -> str:
    """Sizes of the evaluation sets and how much the rewrite changed."""
    tok = sets[sets["eval_set"] == "token_shift"]
    sizes = sets.groupby("eval_set", sort=False).size()
    return ("Evaluation sets: " + ", ".join(f"`{k}` ({v} pairs)" for k, v in sizes.items()) + ". "
            f"The token shift ({', '.join(shifts)}) changed {tok['changed'].mean():.0%} of the pairs and kept, on "
            f"average, {tok['kept_words'].mean():.0%} of each response's words (median "
            f"{tok['kept_words'].median():.0%}).")


def accuracy_markdown(acc: pd.DataFrame, gaps: pd.DataFrame, implicit: str, explicit: str) -> str:
    """Each RM's accuracy per set with its CI, and the paired IM − EX gap per set."""
    a = acc.set_index(["rm", "eval_set"])
    lines = []
    for s, g in gaps.set_index("eval_set").iterrows():
        if s == "token_shift_drop":
            continue
        im, ex = a.loc[(implicit, s)], a.loc[(explicit, s)]
        lines.append(f"* `{s}`: {implicit} {im['accuracy']:.3f} ({_ci(im)}), {explicit} {ex['accuracy']:.3f} "
                     f"({_ci(ex)}); paired difference IM − EX {g['gap']:+.3f} ({_ci(g)}), n = {int(g['n'])}.")
    return "\n".join(lines)


def overlap_markdown(corr: pd.DataFrame) -> str:
    """Spearman correlations of each RM's margin with the overlap features."""
    lines = []
    for r in corr.itertuples(index=False):
        if r.rho != r.rho:  # NaN: a constant feature
            lines.append(f"* {r.rm}, `{r.eval_set}`, {r.feature}: undefined (the feature is constant), n = {r.n}.")
            continue
        lines.append(f"* {r.rm}, `{r.eval_set}`, {r.feature}: ρ = {r.rho:+.2f} ({r.ci_low:+.2f} to {r.ci_high:+.2f}), "
                     f"n = {r.n}.")
    return "\n".join(lines)


def displacement_markdown(summary: dict) -> str:
    """Whether the chosen response's log-prob fell while the margin grew."""
    s = summary
    head = (f"Over the first {s['window']} logged steps and the last {s['window']} (of {s['n_steps']}), the policy's "
            f"log-prob of the chosen completion went from {s['logp_chosen_start']:.2f} to {s['logp_chosen_end']:.2f} "
            f"({s['logp_chosen_change']:+.2f}), of the rejected one from {s['logp_rejected_start']:.2f} to "
            f"{s['logp_rejected_end']:.2f} ({s['logp_rejected_change']:+.2f}), and the implicit reward margin from "
            f"{s['margin_start']:.3f} to {s['margin_end']:.3f}. ")
    if s["displaced"]:
        return head + ("**Likelihood displacement**: the chosen response became *less* likely while the margin "
                       "grew; DPO widened the gap by pushing the rejected response down faster.")
    return head + ("**No likelihood displacement** here: the chosen response's log-prob did not fall while the "
                   "margin grew" + (" (the margin did not grow)." if s["margin_change"] <= 0 else "."))


def verdict_markdown(verdict: dict, gaps: pd.DataFrame, base: str) -> str:
    """The replication statement, computed from the paired gaps, with the reasons it might not replicate here."""
    g = gaps.set_index("eval_set")
    parts = []
    if verdict["token"] == "not tested":
        parts.append("**Token-level shift: not tested.** The rewrites changed none of these pairs (their texts have "
                     "no capitals, punctuation, contractions or WordNet adjectives to rewrite).")
    elif verdict["token"] is not None:
        d = g.loc["token_shift_drop"]
        parts.append(f"**Token-level shift: {verdict['token']}.** The IM-RM lost {d['gap']:+.3f} more accuracy than "
                     f"the EX-RM when the same pairs were rewritten (95% CI {_ci(d)}; > 0 means the IM-RM loses "
                     "more, as published).")
    if verdict["domain"] is not None:
        dom = g[g.index.str.startswith("domain:")]
        listed = "; ".join(f"{s.split(':', 1)[1]} {r['gap']:+.3f} ({_ci(r)})" for s, r in dom.iterrows())
        parts.append(f"**Domain shift: {verdict['domain']}.** IM − EX accuracy on the other sources: {listed} "
                     + ("(published: comparable or better; here the IM-RM is worse on "
                        + ", ".join(verdict["domain_worse_sets"]) + ")." if verdict["domain_worse_sets"] else
                        "(published: comparable or better; no CI here lies below 0)."))
    halves = {"token-level": verdict["token"], "domain": verdict["domain"]}
    failed = [k for k, v in halves.items() if v == "does not replicate"]
    if verdict["replicates"]:
        overall = "The published pattern **replicates** for these two RMs."
    elif failed:
        overall = (f"The published pattern **does not replicate** for these two RMs: the {' and '.join(failed)} "
                   f"half {'goes' if len(failed) == 1 else 'go'} against it.")
    else:  # an inconclusive or untested half is not a failure to replicate
        open_ = [f"the {k} half is {v or 'not computed'}" for k, v in halves.items() if v != "replicates"]
        overall = f"The published pattern is **not established** for these two RMs: {'; '.join(open_)}."
    why = (f" These are one EX-RM and one IM-RM from one base ({base}) and one seed, trained briefly with a short "
           "context, so the CIs are over pairs and say nothing about the spread across seeds or bases. Reasons a "
           "result here can differ from the paper's: the models are small and the training short (the IM-RM's "
           "log-ratio has moved little from the reference, so both RMs stay close to what the base already "
           "prefers); truncation to a short context keeps only the ends of long responses; and the rewrites are "
           "mild (case, punctuation, contractions, synonyms), smaller shifts than the paper's paraphrases.")
    return "\n\n".join(parts + [overall + why])
