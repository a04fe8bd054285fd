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


def displacement_markdown(summary: dict, heldout: pd.DataFrame | None = None) -> str:
    """Along training, whether the chosen completion became less likely than under the reference while the margin
    grew (log-ratios, which compare across batches; the raw log-probs are quoted too); then the same on held-out
    pairs after training (:func:`rmlib.analysis.implicit_explicit.heldout_logratios`), when given."""
    s = summary
    head = (f"Over the first {s['window']} logged steps and the last {s['window']} (of {s['n_steps']}; batch means), "
            f"the policy's log-ratio to the reference, log πθ − log πref, went from {s['logratio_chosen_start']:+.2f} "
            f"to {s['logratio_chosen_end']:+.2f} nats for the chosen completion and from "
            f"{s['logratio_rejected_start']:+.2f} to {s['logratio_rejected_end']:+.2f} for the rejected one, and the "
            f"implicit reward margin from {s['margin_start']:.3f} to {s['margin_end']:.3f}. (The raw log-probs, "
            f"which also change with the pairs each batch holds, went from {s['logp_chosen_start']:.2f} to "
            f"{s['logp_chosen_end']:.2f} and from {s['logp_rejected_start']:.2f} to {s['logp_rejected_end']:.2f}.) ")
    if s["displaced"]:
        body = ("**Likelihood displacement**: by the end of training the chosen completion is *less* likely than "
                "under the reference while the margin grew")
        body += (f"; the margin grew because the rejected completion fell further ({s['logratio_rejected_end']:+.2f} "
                 f"vs {s['logratio_chosen_end']:+.2f} nats)." if s["logratio_rejected_end"] < s["logratio_chosen_end"]
                 else ".")
    else:
        body = ("**No likelihood displacement** along training: " +
                ("the margin did not grow." if s["margin_change"] <= 0 else
                 "the chosen completion did not end below its reference log-prob while the margin grew."))
    if heldout is None:
        return head + body
    h = heldout.set_index("completion")
    c, r = h.loc["chosen"], h.loc["rejected"]
    held = (f" On {int(c['n'])} held-out pairs after training, log πθ − log πref is {c['mean']:+.2f} nats for the "
            f"chosen completion ({_ci(c)}) and {r['mean']:+.2f} for the rejected one ({_ci(r)}): ")
    if c["ci_high"] < 0:
        held += "the chosen completion is less likely than under the reference there too (its CI lies below 0)."
    elif c["ci_low"] > 0:
        held += "there the chosen completion became *more* likely (its CI lies above 0), so no displacement."
    else:
        held += "its CI spans 0, so displacement is not established on held-out pairs."
    return head + body + held


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
        m, sets = verdict["domain_margin"], verdict["domain_sets"]
        listed = "; ".join(f"{s.split(':', 1)[1]} {r['gap']:+.3f} ({_ci(r)}): {sets[s.split(':', 1)[1]]}"
                           for s, r in dom.iterrows())
        parts.append(f"**Domain shift: {verdict['domain']}.** Published: comparable or better. With a margin of "
                     f"{m:g} accuracy, a source counts as comparable or better when its IM − EX CI lies above "
                     f"−{m:g}, as worse when it lies below −{m:g}, and as not established when it spans −{m:g} "
                     f"(too wide to tell). IM − EX accuracy on the other sources: {listed}.")
    for b in verdict.get("below_chance", []):
        parts.append(f"**Caveat:** on `{b['eval_set']}` the {b['rm']} is *below* chance ({b['accuracy']:.3f}, "
                     f"{_ci(b)}): that source's labels run against what the training pairs taught, so a higher "
                     "accuracy there can mean an RM learnt *less* of the training preference, not that it "
                     "generalises better; that source is not counted for the domain half.")
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
           "result here can differ from the paper's: the models are small and the training short (the implicit "
           "reward margin it reached is in the displacement section above); truncation to a short context keeps only the ends of long responses; and the rewrites are "
           "mild (case, punctuation, contractions, synonyms), smaller shifts than the paper's paraphrases.")
    return "\n\n".join(parts + [overall + why])
