"""The sentences of the pages that set RMs against human ratings (about, elo_misalignment)."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.human_ratings import EloScores

__all__ = ["run_markdown", "agreement_markdown", "robustness_markdown", "forms_markdown", "themes_by_prompt_markdown",
           "topics_markdown", "spread_markdown"]

_DIRECTION = {"over": "**over-represented** among the most undervalued items",
              "under": "**under-represented**: the models undervalue these items *less* often than others"}


def run_markdown(elo: EloScores) -> str:
    """How many models, items and prompts; whether human Elo is one rating per item; implicit rewards named."""
    return (f"This run compares **{len(elo.models)} model(s)** with the human ratings on **{len(elo.items):,} items** "
            f"under **{len(elo.prompt_keys)} prompt(s)** ({', '.join(elo.prompt_keys)}). Human Elo does not depend "
            f"on the prompt (one rating per item): {'confirmed' if elo.same_elo else 'NOT the case'} in these files. "
            + ("Scores are the models' **implicit** rewards (LM log-probabilities), not trained RMs."
               if all(k.startswith('LM') for k in elo.kinds.values()) else ""))


def agreement_markdown(agreement: pd.DataFrame) -> str:
    """The range and median of ρ over model × prompt cells, and how many rank items against people."""
    best, worst = agreement.loc[agreement["rho"].idxmax()], agreement.loc[agreement["rho"].idxmin()]
    n_neg = int((agreement["ci_high"] < 0).sum())
    return (f"Agreement ranges from ρ = {worst.rho:.2f} ({worst.model}, *{worst.prompt_key}*) to ρ = {best.rho:.2f} "
            f"({best.model}, *{best.prompt_key}*); the median over {len(agreement)} model×prompt cells is "
            f"ρ = {agreement['rho'].median():.2f}. {n_neg} cell(s) have a CI entirely below zero "
            f"(the model ranks items *against* people).")


def robustness_markdown(rob: dict, aggregate: str, top_k: int) -> str:
    """The pooled extremes, and whether the lists survive median vs mean and rank vs z
    (:func:`rmlib.analysis.human_ratings.method_robustness`)."""
    robust = rob["robust"]
    weak = robust[robust["shared"] < 0.8 * top_k]
    robust_text = ("the lists are robust to that choice (at least 80% shared) everywhere" if weak.empty else
                   f"they share fewer than 80% in {len(weak)} list(s): " + "; ".join(
                       f"{r.prompt_key}, {r.direction}: {r.shared}/{top_k}" for r in weak.itertuples())
                   + ", so single items there depend on how the models are combined")
    return (f"Pooled over prompts, by the rank method the models most under-value *{'*, *'.join(rob['most_under'])}* "
            f"and most over-value *{'*, *'.join(rob['most_over'])}*. **Median or mean?** Across the {len(robust)} "
            f"top-{top_k} lists, the two aggregates share {robust['shared'].min()} to {robust['shared'].max()} of "
            f"{top_k} items; {robust_text}. **Rank or z?** The two methods order all {len(rob['consensus']):,} items "
            f"similarly (Spearman ρ = {rob['method_rho']:.2f} between the pooled consensus rank and z differences), "
            f"and their pooled top-{top_k} lists share {rob['overlap_over']:.0%} of the over-valued and "
            f"{rob['overlap_under']:.0%} of the under-valued items.")


def forms_markdown(fs: dict, min_items: int) -> str:
    """The most over- and under-valued item forms, and positive vs negative words
    (:func:`rmlib.analysis.human_ratings.form_summary`)."""
    form_mean, val_mean, big = fs["form_mean"], fs["valence_mean"], fs["big"]
    f_hi, f_lo = big["rank_diff"].idxmax(), big["rank_diff"].idxmin()
    return (f"Averaged over models and prompts, and among forms with at least {min_items} items, **{f_hi}** items "
            f"are the most over-valued form (mean rank difference {form_mean.loc[f_hi, 'rank_diff']:+.0f}, z "
            f"difference {form_mean.loc[f_hi, 'z_diff']:+.2f}) and **{f_lo}** items the most under-valued "
            f"({form_mean.loc[f_lo, 'rank_diff']:+.0f}, {form_mean.loc[f_lo, 'z_diff']:+.2f}); the rank and z "
            f"methods give the same sign for {fs['agree_sign']:.0%} of the forms. Among rated single words, positive "
            f"words have a mean rank difference of {_band_diff(val_mean, 'positive')} and negative words "
            f"{_band_diff(val_mean, 'negative')}.")


def _band_diff(val_mean: pd.DataFrame, band: str) -> str:
    """A valence band's mean rank difference and item count; 'n/a' where no item is in the band (not '+nan')."""
    if band not in val_mean.index:
        return "n/a (n = 0)"
    return f"{val_mean.loc[band, 'rank_diff']:+.0f} (n = {int(val_mean.loc[band, 'n_items'])})"


def _prompt_list(prompts: list[str]) -> str:
    return ", ".join(f"*{p}*" for p in prompts) if prompts else "none"


def themes_by_prompt_markdown(tp: dict, *, share: float, aggregate: str) -> str:
    """The primary theme result: per theme, the prompts on which it is over- and under-represented among each
    prompt's most undervalued items, with the ratio and FDR p of every theme x prompt test
    (``by_prompt`` of :func:`rmlib.analysis.human_ratings.undervalued_topics`)."""
    from rmlib.analysis.human_ratings import theme_prompts

    bp = tp["by_prompt"]
    if bp.empty:
        return "No per-prompt consensus was given, so the themes are tested only pooled over prompts (below)."
    where = theme_prompts(bp)
    n_prompts = bp["prompt"].nunique()
    lines = []
    for t, g in bp.groupby("topic", sort=True):
        cells = "; ".join(f"*{r.prompt}* ×{r.ratio:.2f} ({r.n_flagged} vs {r.expected:.1f}, FDR p = {r.p_fdr:.3g})"
                          for r in g.itertuples())
        over, under = where[t]["over"], where[t]["under"]
        verdict = ("over-represented on " + _prompt_list(over) if over else "") + \
                  ("; " if over and under else "") + ("under-represented on " + _prompt_list(under) if under else "")
        lines.append(f"- **{t}**: {verdict or 'on no prompt different from other items after FDR'}. {cells}.")
    mixed = [t for t, d in where.items() if d["over"] and d["under"]]
    return (f"**Per prompt (the primary test).** Each prompt's {share:.0%} most undervalued items ({aggregate} over "
            f"models under that prompt) are tested for each theme, with one Benjamini–Hochberg FDR across the "
            f"{len(bp)} theme × prompt tests ({bp['topic'].nunique()} themes × {n_prompts} "
            f"{'prompt' if n_prompts == 1 else 'prompts'}); ×ratio = "
            f"count among the undervalued / count expected within the human-rank bins.\n\n" + "\n".join(lines)
            + ("\n\n" + ", ".join(f"**{t}**" for t in mixed) + (" goes" if len(mixed) == 1 else " go")
               + " opposite ways on different prompts, so a pooled figure averages opposite effects." if mixed else ""))


def topics_markdown(tp: dict, *, share: float, aggregate: str, strata: int) -> str:
    """Topic coverage, items without a topic, and the supersenses and the pooled themes among the most undervalued
    items (:func:`rmlib.analysis.human_ratings.undervalued_topics`); the per-prompt themes, the primary result, are
    :func:`themes_by_prompt_markdown`."""
    topics, with_topic, n_flag, no_topic = tp["topics"], tp["with_topic"], tp["n_flagged"], tp["no_topic"]
    supersense, theme = tp["enrich"]["supersense"], tp["enrich"]["theme"]
    rules = topics["rule"].value_counts()
    sig = supersense[supersense["direction"] != ""]
    theme_lines = [f"- **{r.topic}** ({r.n_items} items with a topic; {r.n_flagged} among the undervalued vs "
                   f"{r.expected:.1f} expected, ratio {r.ratio:.2f}, FDR p = {r.p_fdr:.3g}): "
                   + _DIRECTION.get(r.direction, "no different from other items (not significant after FDR)")
                   + (f"; without the strata the ratio is {r.ratio_unstratified:.2f}." if strata > 1 else ".")
                   for r in theme.sort_values("topic").itertuples()]
    return (f"{len(with_topic):,} of {len(topics):,} items ({len(with_topic) / len(topics):.0%}) got a topic; "
            f"{int(topics['topic'].isna().sum()):,} did not (no WordNet noun: "
            f"{int(rules.get('not a WordNet noun', 0)):,}; no word at all: {int(rules.get('no word', 0))}). Items "
            f"without a topic make up {no_topic.loc['no topic', 'n_flagged']} of the {n_flag} most undervalued items "
            f"vs {no_topic.loc['no topic', 'expected']:.1f} expected (FDR p = {no_topic.loc['no topic', 'p_fdr']:.3g}), "
            f"so the topic test covers the items WordNet can name. "
            f"{int(topics['themes'].apply(lambda t: 'human sexuality' in t).sum())} items are in *human sexuality*, "
            f"{int(topics['sexuality_word'].notna().sum())} of them through a word of the title other than its head."
            f"\n\n**Pooled over prompts (secondary).** Among the {n_flag} most undervalued items ({share:.0%}, "
            f"{aggregate} over models and prompts), {len(sig)} of {len(supersense)} supersenses differ from their "
            f"share among all items after FDR: " + ("; ".join(f"{r.topic} {r.direction} ({r.n_flagged} vs "
                                                        f"{r.expected:.1f})" for r in sig.itertuples()) or "none")
            + ". The paper's themes, pooled (where the per-prompt results above disagree between prompts, this "
              "average hides it):\n\n" + "\n".join(theme_lines))


def spread_markdown(traj: dict) -> str:
    spread = traj["spread"]
    return (f"Across the models shown, an item's rank percentile varies with a median standard deviation of "
            f"{spread.median():.1f} points (item with the widest spread: *{spread.idxmax()}*, "
            f"{spread.max():.1f} points).")
