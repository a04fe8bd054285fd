"""The mere exposure chapter's sentences: what was scored, the shares of positive frequency slopes against their
shuffled baselines, the verdict per model, and the frequency an RM pays for beyond its base LM."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.claims.rules import MOST
from rmlib.analysis.exposure import FREQUENCY_LABELS
from rmlib.data import RM_SCORE

__all__ = ["level_markdown", "coverage_markdown", "shares_markdown", "dictionary_markdown", "verdicts_markdown",
           "agreement_markdown", "lm_control_markdown"]

_VERDICT = {"holds": "holds with every matching", "fails": "fails with every matching",
            "not established": "is not established with any matching (no model's slope is clear either way)"}


def _mixed_verdict(rows: pd.DataFrame) -> str:
    """'Mixed' says why: clear in too few models, and (where it is so) clear the other way in some."""
    against = rows[rows["n_below"] > 0]
    if against.empty:
        return "is mixed with every matching (the right direction, but clear in too few models)"
    return ("is mixed with every matching: clear in too few models, and significantly the other way in "
            + ", ".join(f"{r.n_below} ({FREQUENCY_LABELS[r.source]})" for r in against.itertuples()))


def level_markdown(data: pd.DataFrame, mode: str) -> str:
    if mode == "published":
        return (f"**Word level, published scores.** The released scores of {data['model'].nunique()} of the paper's "
                f"reward models for {data['word'].nunique():,} distinct dictionary words (Big Two nouns and MFD2 "
                f"terms), each scored as the whole answer, under {data['prompt_key'].nunique()} prompts.")
    kinds = data.groupby("model")["reward_kind"].first()
    per_model = data.groupby("model")["token_id"].nunique()
    return (f"**Token level, computed now.** Full-vocabulary sweeps of {data['model'].nunique()} model(s) under "
            f"{data['prompt_key'].nunique()} prompts. Every token whose text (leading space removed, lowercased) is "
            f"a word — {per_model.min():,} to {per_model.max():,} tokens per model — is a data point; punctuation, "
            "numbers and word pieces without a frequency drop out. Reward kinds: "
            + "; ".join(f"{m} = {k}" for m, k in kinds.items())
            + ". An LM's log-prob is an *implicit* reward, not a trained RM's score.")


def coverage_markdown(cover: dict[str, float]) -> str:
    return ("Words with a frequency: " + "; ".join(f"{FREQUENCY_LABELS[s]} {c:.0%}" for s, c in cover.items())
            + ". The BNC list covers only fairly common words, so its analyses rest on a smaller, more frequent"
            " subset; the row *wordfreq, BNC words only* separates that from the choice of counts.")


def shares_markdown(share_table: pd.DataFrame, sources) -> str:
    """Per prompt valence, the share of positive slopes per matching next to its shuffled baseline, and whether
    the baselines are narrow enough to read the shares against."""
    valenced = share_table[share_table["prompts"] != "all"]
    lines = []
    for pv in ("positive", "negative"):
        rows = valenced[(valenced["prompts"] == pv) & valenced["source"].isin(list(sources))]
        lines.append(f"- **{pv.capitalize()} prompts:** positive slopes in "
                     + ", ".join(f"{r.n_positive} of {r.n_cells} cells ({r.share:.0%}; {FREQUENCY_LABELS[r.source]}; "
                                 f"shuffled shares {r.null_low:.0%}–{r.null_high:.0%}, permutation p = "
                                 f"{r.p_greater:.2g})" for r in rows.itertuples()) + ".")
    wide_null = valenced[(valenced["null_high"] - valenced["null_low"]) > 0.5]
    return "\n".join(lines) + "\n\n" + (
        f"In {len(wide_null)} of {len(valenced)} rows the middle 95% of shuffled shares spans more than half the "
        "scale: the cells score the same words under near-identical prompts, so a shuffle moves them all together and "
        "the share of cells cannot tell a frequency effect from chance. The per-model test below, with words as "
        "clusters, can." if len(wide_null) else
        "The shuffled baselines are narrow enough for the shares to be read against them.")


def dictionary_markdown(by_dict: pd.DataFrame) -> str:
    if by_dict.empty:
        return "Compute mode scores tokens, which belong to no dictionary: no split by dictionary."
    low = by_dict[by_dict["share"] < MOST]
    return (f"Across the {len(by_dict)} dictionary × prompt valence × matching combinations, the share of positive "
            f"slopes ranges from {by_dict['share'].min():.0%} to {by_dict['share'].max():.0%}; "
            + (f"{len(low)} fall below {MOST:.0%}: " + "; ".join(
                f"{r.dictionary}, {r.prompts} prompts, {FREQUENCY_LABELS[r.source]} ({r.n_positive} of {r.n_cells})"
                for r in low.itertuples()) if len(low) else f"none falls below {MOST:.0%}") + ".")


def verdicts_markdown(by_model: pd.DataFrame) -> str:
    """Per prompt valence, the models with a pooled slope above / below zero per matching, and the verdict."""
    lines = []
    for pv in ("positive", "negative"):
        rows = by_model[by_model["prompts"] == pv]
        states = set(rows["outcome"])
        state = states.pop() if len(states) == 1 else None
        verdict = ((_mixed_verdict(rows) if state == "mixed" else _VERDICT[state]) if state else
                   "depends on the matching (" + ", ".join(
            f"{FREQUENCY_LABELS[r.source]}: {r.outcome}" for r in rows.itertuples()) + ")")
        lines.append(f"- **{pv.capitalize()} prompts:** the pooled frequency slope is above zero (95% CI, clustered "
                     "by word) for " + ", ".join(f"{r.n_above} of {r.n_models} models "
                                                 f"({FREQUENCY_LABELS[r.source]}; below zero for {r.n_below})"
                                                 for r in rows.itertuples())
                     + f". By the claims page's rule (at least {MOST:.0%} of models), the frequency preference "
                     f"**{verdict}**.")
    return "\n".join(lines)


def agreement_markdown(agreement: pd.DataFrame) -> str:
    return "**Do the matchings agree cell by cell?** " + "; ".join(
        f"{FREQUENCY_LABELS[r.a]} vs {FREQUENCY_LABELS[r.b]}: Spearman ρ = {r.rho:.2f}, same sign in "
        f"{r.same_sign:.0%} of cells" for r in agreement.itertuples()) + "."


LM_CONTROL_HEADING = (
    "## Does the RM double-count what the KL regulariser rewards?\n\n"
    "In RLHF the policy is penalised for drifting from its reference LM, so frequent, high-probability tokens are "
    "already favoured. The question is whether the RM adds its own frequency bonus on top. That needs token-level "
    "scores and the reference LM's log-prob of each token under the same prompt, so it runs in compute mode only: for "
    "an RM trained by rmlib the reference is its base LM; for an LM used as an implicit RM the \"reward\" *is* that "
    "log-prob, so it double-counts by construction and the comparison below only describes the LM itself.\n\n")


def lm_control_markdown(kl: pd.DataFrame, mode: str) -> str:
    """The section on what the KL term already rewards (LMs) and what an RM pays beyond its base LM (trained RMs),
    heading included; empty in published mode, which has no token scores or base-LM log-probs (a page does not show
    a section only to say that it is empty)."""
    if mode != "compute":
        return ""
    if kl.empty:
        return LM_CONTROL_HEADING + ("None of the models has a known reference LM (hub RMs do not record one), so "
                                     "there is nothing to compare.")
    rm_part, lm_part = kl[kl["reward_kind"] == RM_SCORE], kl[kl["reward_kind"] != RM_SCORE]
    text = []
    if len(lm_part):
        text.append(f"For the LM(s) scored by log-prob, the frequency slope of the log-prob itself is "
                    f"{lm_part['lm_slope'].min():+.3f} to {lm_part['lm_slope'].max():+.3f} SD per Zipf unit across "
                    f"prompts (wordfreq, valence held fixed): this is what the KL term already rewards.")
    if len(rm_part):
        text.append(f"For the trained RM(s), reward and base-LM log-prob correlate at Spearman ρ = "
                    f"{rm_part['rho_reward_vs_lm_logprob'].median():.2f} (median over prompts). The RM's own "
                    f"frequency slope is {rm_part['reward_slope'].median():+.3f}; holding the LM log-prob fixed it is "
                    f"{rm_part['reward_slope_given_lm'].median():+.3f} (median). A slope that stays above zero after "
                    f"that control is frequency the RM pays for *beyond* what the LM already prefers.")
    else:
        text.append("No trained RM was given, so whether an RM double-counts frequency cannot be answered from "
                    "this run: pass `local:<name>` RMs in MODELS.")
    return LM_CONTROL_HEADING + " ".join(text)
