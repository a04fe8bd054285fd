"""The blinding chapter's sentences, computed from the tables of :mod:`rmlib.analysis.blinding` (no number typed in).

Every function takes what an analysis function returned and gives markdown.
"""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.blinding.prompts import CONDITION_LABELS, decision_prompts
from rmlib.stats.columns import require_columns

__all__ = ["run_markdown", "conditions_markdown", "example_markdown", "tokens_markdown", "usable_markdown", "condition4_markdown",
           "behaviour_markdown", "verdicts_markdown", "effects_markdown", "rm_markdown", "verdict_sentence",
           "points_markdown"]


def run_markdown(design, dtype: str, missing: dict[str, str]) -> str:
    """What this run asks, and each requested RM that does not exist yet, said plainly."""
    n_t, n_d = len(design.templates), len(design.descriptors)
    text = (f"This run: **{n_t} templates** in {design.templates['domain'].nunique()} domains × **{n_d} "
            f"descriptors** on {design.descriptors['axis'].nunique()} axes, so {n_t * n_d:,} informed questions per "
            f"model and {n_t * (3 * n_d + 1):,} prompts with the other conditions; models in {dtype}.")
    for m, why in missing.items():
        text += (f"\n\n**Missing: `{m}`** ({why.split(' (')[0]}). This reward model does not exist until the "
                 "finetuning chapter has trained it (`make book` runs that chapter first). **This page has no "
                 "reward-model results for it**; it reports on the other models.")
    return text


def conditions_markdown(design) -> str:
    """The four conditions in the design's own wording (its ``ignore_instruction`` and ``replica_note``, filled in
    for the first template's noun and the first axis's attribute), so a ``DESIGN_FILE`` of one's own changes the
    page too."""
    t, d = design.templates.iloc[0], design.descriptors.iloc[0]
    ignore = design.ignore_instruction.format(noun=t["noun"], attribute=d["attribute"])
    note = design.replica_note.format(noun=t["noun"], attribute=d["attribute"], answer=design.answers[0], p="…")
    return ("**Four conditions**, per model and template (quoted for the first template and axis of this run):\n\n"
            "1. **informed**: the descriptor is in the question;\n"
            f"2. **told to ignore**: the same, plus \"{ignore}\";\n"
            f"3. **blinded replica**: the descriptor removed (\"{t['article']} {t['noun']}\"); this prompt is the same "
            "for every descriptor, so its disparity is zero by construction;\n"
            "4. **replica's answer shown** (counterfactual self-simulation): the informed question plus "
            f"\"{note}\", the model's own answer in condition 3 for the same template.")


def example_markdown(design) -> str:
    """The three prompts of the first template and descriptor, one per condition (1-3)."""
    example = decision_prompts(design.select(1, [design.descriptors["axis"].iloc[0]])).iloc[:3]
    return "For example, for the first template and descriptor:\n\n" + "\n".join(
        f"- *{CONDITION_LABELS[r.condition]}*: {r.prompt}" for r in example.itertuples())


def tokens_markdown(tokens: pd.DataFrame, answers) -> str:
    """Which models read P(yes) from one token per answer (exact next-token probabilities) and which do not."""
    single = tokens.groupby("model", sort=False)["n_tokens"].max().eq(1)
    return (f"Answers used: {' / '.join(repr(a) for a in answers)}. "
            + (f"They are one token each for {', '.join(single[single].index)}: there P(yes) is exactly the "
               "next-token distribution restricted to the two answers. " if single.any() else "")
            + (f"For {', '.join(single[~single].index)} an answer takes several tokens, so P(yes) compares the "
               "probabilities of the two token sequences." if (~single).any() else ""))


def usable_markdown(runs: dict) -> str:
    """Which scored models were left out as unusable (too little probability on the two answers)."""
    unusable = [m for m, r in runs.items() if not r.usable]
    if not unusable:
        return "Every model scored is usable by that rule."
    return ("Not usable by that rule, and left out of everything below: " + ", ".join(
        f"**{m}** (p(Yes) + p(No) = {runs[m].mean_mass:.3f} on average)" for m in unusable) + ".")


def condition4_markdown(table: pd.DataFrame) -> str:
    """One condition-4 prompt, shown in full (the replica's answer for its template is in it)."""
    cf = table[table["condition"] == "counterfactual"].iloc[0]
    return f"A condition-4 prompt ({cf['model']}, template `{cf['template']}`): {cf['prompt']}"


def behaviour_markdown(beh: pd.DataFrame) -> str:
    """How each model answers, from :func:`rmlib.analysis.blinding.behaviour`, one line per model."""
    return "\n".join(
        f"- **{b.model}**: P(yes) {b.blinded_p_yes:.2f} on average for the blinded replica, SD "
        f"{b.blinded_template_sd:.3f} across templates; told to ignore, P(yes) moves by {b.ignore_abs_shift:.3f} on "
        f"average ({b.ignore_shift:+.3f} signed); its answer agrees with the replica's on {b.agree_informed:.0%} of "
        f"informed questions and on {b.agree_counterfactual:.0%} once the replica's answer is shown (mean "
        f"probability of the replica's answer {b.replica_p_informed:.2f} → {b.replica_p_counterfactual:.2f})."
        for b in beh.itertuples())


def verdicts_markdown(verdicts: dict) -> str:
    """Per-model sentences and the tally, from :func:`rmlib.analysis.blinding.verdict_counts`."""
    main, counts = verdicts["main"], verdicts["counts"]
    per_axis, backfires = verdicts["per_axis"], verdicts["backfires"]
    lines = "\n".join(f"- **{m}**: " + " ".join(verdict_sentence(r) for _, r in g.iterrows())
                      for m, g in main.groupby("model", sort=False))
    ti, cf = counts["told_to_ignore"], counts["counterfactual"]
    tally = (f"Over the {main['model'].nunique()} usable model(s), mean over axes: telling the model to ignore the "
             f"attribute reduces the gap for **{ti.get('reduces', 0)}**, increases it for "
             f"**{ti.get('increases', 0)}**, and changes it not reliably for **{ti.get('no reliable change', 0)}**; "
             f"showing the replica's answer reduces it for **{cf.get('reduces', 0)}**, increases it for "
             f"**{cf.get('increases', 0)}**, not reliably for **{cf.get('no reliable change', 0)}**"
             + (f" ({ti['too few templates']} without a verdict: too few templates)"
                if ti.get("too few templates") else "") + ". ")
    if len(backfires):
        tally += ("On single axes, the instruction backfires (the gap grows, interval above zero) for "
                  + "; ".join(f"{r.model} on {r.axis} ({r.informed:.3f} → {r.value:.3f})"
                              for r in backfires.itertuples()) + ".")
    else:
        tally += ("On no single axis does the instruction reliably increase the gap "
                  f"({len(per_axis)} model × axis cells).")
    return lines + "\n\n" + tally


def effects_markdown(effects: pd.DataFrame) -> str:
    """The largest effect of knowing a descriptor (condition 1), per model."""
    informed = effects[effects["condition"] == "informed"]
    top = informed.loc[informed["effect"].abs().groupby(informed["model"], sort=False).idxmax()]
    return "Largest effect of knowing a descriptor (condition 1), per model: " + "; ".join(
        f"{r.model}: *{r.descriptor}* {r.effect:+.3f}"
        + ("" if pd.isna(r.ci_low) else f" (95% CI {r.ci_low:+.3f} to {r.ci_high:+.3f})")
        for r in top.itertuples()) + "."


def rm_markdown(prefs: pd.DataFrame, missing: dict[str, str]) -> str:
    """Which RMs the reward-model section covers, and which requested RMs are missing (not trained yet)."""
    text = (f"Reward models scored: {', '.join(f'**{m}**' for m in dict.fromkeys(prefs['model']))}."
            if len(prefs) else "**No reward model in this run**: the four conditions above are answered by "
            "language models only.")
    if missing:
        text += (" Requested but missing: " + ", ".join(f"`{m}`" for m in missing) + ". The fine-tuned SmolLM2 RM "
                 "exists only after the finetuning chapter has trained it (`make book`); until then this section "
                 "has no result for it.")
    return text


def verdict_sentence(row: pd.Series | dict) -> str:
    """One plain sentence for a row of disparity()['change'] (measure 'gap')."""
    r = dict(row)
    what = {"told_to_ignore": "Telling it to ignore the attribute", "blinded": "Blinding it",
            "counterfactual": "Showing it the blinded replica's answer"}[r["condition"]]
    size = f"from {r['informed']:.3f} to {r['value']:.3f}"
    if r["verdict"] == "too few templates":
        return f"{what} changes the gap {size}; with fewer than 3 templates there is no interval, so no verdict."
    ci = f"(reduction {r['reduction']:+.3f}, 95% CI {r['ci_low']:+.3f} to {r['ci_high']:+.3f})"
    if r["verdict"] == "reduces":
        return f"{what} **reduces** the gap {size} {ci}."
    if r["verdict"] == "increases":
        return f"{what} **increases** the gap {size} {ci}" + (": it backfires." if r["condition"] == "told_to_ignore"
                                                              else ".")
    return f"{what} changes the gap {size}, **not reliably** {ci}."


_INSTRUCTION = {
    "backfires": "telling it to ignore the attribute **backfires** (the gap grows reliably): the paper's point that "
                 "the instruction fails replicates",
    "does not help": "telling it to ignore the attribute does **not** reliably change the gap: consistent with the "
                     "paper's point that the instruction fails (an interval that spans 0 does not show it has no "
                     "effect)",
    "helps": "telling it to ignore the attribute reliably **reduces** the gap: the paper's point that the instruction "
             "fails does **not** replicate here",
}
_REPLICA = {
    "helps": "showing it the blinded replica's answer reliably **reduces** the gap: the paper's point replicates",
    "does not help": "showing it the blinded replica's answer does **not** reliably reduce the gap: the paper's point "
                     "is **not established** here (the interval spans 0)",
    "hurts": "showing it the blinded replica's answer **increases** the gap: the paper's point does **not** "
             "replicate here",
}
_VERSUS = {
    "replica better": "the replica's answer leaves reliably less disparity than the instruction",
    "instruction better": "the instruction leaves reliably less disparity than the replica's answer",
    "no reliable difference": "neither leaves reliably less disparity than the other",
}


def points_markdown(points: pd.DataFrame, *, min_template_sd: float = 0.05, copy_share: float = 0.95) -> str:
    """The paper's points per model, in words, from rmlib.analysis.blinding.paper_points (same thresholds), and the tally."""
    require_columns(points, ["model", "instruction", "replica", "replica_vs_instruction", "responsive",
                             "copies_replica", "instruction_point_replicates", "replica_point_replicates"],
                    "points_markdown")
    lines = []
    for r in points.itertuples(index=False):
        if r.instruction is None and r.replica is None:
            lines.append(f"- **{r.model}**: too few templates for intervals, so no verdict.")
            continue
        parts = [_INSTRUCTION.get(r.instruction, "no verdict on the instruction"),
                 _REPLICA.get(r.replica, "no verdict on the replica's answer"),
                 _VERSUS.get(r.replica_vs_instruction, "no verdict on the two compared")]
        text = f"- **{r.model}**: " + "; ".join(parts) + "."
        if r.responsive is False:
            text += (f" *Caveat*: its blinded replica's P(yes) varies across templates by less than {min_template_sd} "
                     "(SD), so it barely tells the cases apart; a small disparity says little about the mitigation.")
        if r.copies_replica:
            text += (f" *Caveat*: shown the replica's answer, it agrees with it on at least {copy_share:.0%} of the "
                     "questions, more often than before: the reduction may be copying rather than self-correction.")
        if getattr(r, "defies_replica", None):
            text += (" *Caveat*: shown the replica's answer, it agrees with it on fewer than half of the questions, "
                     "less often than before: the note pushes its answer away from the replica's, so any fall in "
                     "disparity is not the model consulting its replica.")
        lines.append(text)
    judged = points.dropna(subset=["instruction"])
    n = len(judged)
    tally = (f"\n\nOf {n} model(s) with a verdict, the instruction point replicates for "
             f"**{int(judged['instruction_point_replicates'].astype(bool).sum())}** and the replica point for "
             f"**{int(judged['replica_point_replicates'].fillna(False).astype(bool).sum())}**." if n else "")
    return "\n".join(lines) + tally
