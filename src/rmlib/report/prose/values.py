"""The value chapters' prose (Big Two, MFD2, implicit rewards): findings in sentences computed from the tables."""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rmlib.analysis.families import summarise
from rmlib.data import design_prompts
from rmlib.stats import require_columns

__all__ = ["describe_prompt_subset", "contrast_lines", "describe_panel", "anova_sentence", "findings_markdown",
           "direction_markdown", "scores_markdown", "score_label", "missing_families_markdown", "word_pair_markdown",
           "comparison_markdown", "interaction_markdown"]


def describe_prompt_subset(prompt_keys: Sequence[str]) -> str:
    """'4 of the 54 prompts (adjectives best, greatest | worst, bad; superlative ever; phrasing one)'."""
    p = design_prompts(prompt_keys)
    uniq = lambda col: ", ".join(dict.fromkeys(p[col]))  # noqa: E731
    pos, neg = (", ".join(dict.fromkeys(p.loc[p["valence"] == v, "adjective"])) for v in ("positive", "negative"))
    return (f"{len(p)} of the 54 prompts (adjectives {pos} | {neg}; superlative {uniq('superlative')}; "
            f"phrasing {uniq('phrasing')})")


def contrast_lines(tests: pd.DataFrame, a: str, b: str) -> list[str]:
    """One markdown bullet per row of :func:`word_contrast` output: which group ranks higher, with g, CI and FDR p."""
    require_columns(tests, ["model", "reward_kind", "valence", "mean_a", "mean_b", "hedges_g", "g_ci_low",
                            "g_ci_high", "p_fdr", "reject"])
    lines = []
    for r in tests.itertuples():
        higher = a if r.mean_a < r.mean_b else b
        lines.append(f"- {r.model} ({r.reward_kind}), {r.valence} prompts: {higher} words rank higher "
                     f"(mean rank {r.mean_a:.1f} vs {r.mean_b:.1f}; g = {r.hedges_g:.2f} "
                     f"[{r.g_ci_low:.2f}, {r.g_ci_high:.2f}]; FDR p = {r.p_fdr:.3g}"
                     f"{', significant' if r.reject else ''}).")
    return lines


def describe_panel(row: pd.Series, by: Sequence[str], first: str, second: str) -> str:
    """One sentence for a permutation-test row: which family ranks the category higher, p and FDR-adjusted p."""
    where = ", ".join(f"{row[b]}" for b in by)
    higher = first if row["mean_a"] < row["mean_b"] else second
    return (f"{where}: {higher} ranks it higher (median rank {row['mean_a']:.1f} vs {row['mean_b']:.1f}; "
            f"t = {row['t']:.2f}, p = {row['p']:.3g}, FDR p = {row['p_fdr']:.3g}, "
            f"{'significant' if row['reject'] else 'not significant'} at FDR 0.05)")


def anova_sentence(res: dict, term: str) -> str:
    """'F(df, df_resid) = F, p = p, partial η² = ...' for one ANOVA term."""
    a = res["anova"]
    if a is None:
        return "not estimable (one model)"
    t = a.set_index("term")
    if term not in t.index:
        raise ValueError(f"term {term!r} not in the ANOVA table (terms: {t.index.tolist()})")
    r, resid = t.loc[term], t.loc["Residual", "df"]
    return f"F({r.df:.0f}, {resid:.0f}) = {r.F:.1f}, p = {r.p:.2g}, partial η² = {r.partial_eta_sq:.2f}"


def findings_markdown(res: dict, *, label: str, families: Sequence[str] = ("Gemma", "Llama"),
                      by: Sequence[str] = ("category", "valence")) -> str:
    """What the family tests show, in sentences computed from the tables (no number is typed in by hand)."""
    s = summarise(res, families)
    by = list(by)
    fa, fb = families
    perm = res["permutation"]
    counts = ", ".join(f"{v} {k}" for k, v in s["models_per_family"].items())
    unit = ("each model is one replicate" if s["unit"] == "model"
            else "each prompt is one replicate, so the tests compare these particular models rather than families")
    lines = [f"**{label}** ({counts} model(s); {s['n_prompts']} prompts; {unit}).", ""]
    if s["n_significant_fdr"] == 0:
        lines.append(f"In plain words: **no panel shows a significant {fa}–{fb} difference after FDR correction**, "
                     "so these scores do not establish a family effect" +
                     (" at the level of models." if s["unit"] == "model" else " between these models.") +
                     " Point estimates and their intervals are below.")
    else:
        sig = perm[perm["reject"]]
        lines.append(f"In plain words: **{len(sig)} of {len(perm)} panel(s) show a significant {fa}–{fb} difference "
                     "after FDR correction**: " + "; ".join(
                         ", ".join(str(r[b]) for b in by) for _, r in sig.iterrows()) + ".")
    lines.append("")
    lines.append(f"- Permutation Welch tests, {fa} vs {fb}, in {s['n_panels']} panels "
                 f"({' × '.join(by)}): {s['n_significant_raw']} panel(s) with p < 0.05 before correction, "
                 f"**{s['n_significant_fdr']} after FDR** (smallest p = {s['min_p']:.3g}, "
                 f"smallest FDR-adjusted p = {s['min_p_fdr']:.3g}). With {perm['n_a'].iloc[0]} vs "
                 f"{perm['n_b'].iloc[0]} {'models' if s['unit'] == 'model' else 'model × prompt rows'} the smallest p an exact "
                 f"permutation test can give is {s['min_attainable_p']:.3g}.")
    for _, row in perm.sort_values("p").head(4).iterrows():
        lines.append(f"  - {describe_panel(row, by, fa, fb)}")
    if res["anova"] is not None:
        inter = ":".join([by[0], by[1], "model"])
        lines.append(f"- Type-II ANOVA of median ranks: {by[0]} {anova_sentence(res, by[0])}; "
                     f"{by[0]} × {by[1]} {anova_sentence(res, ':'.join(by))}; "
                     f"{by[0]} × {by[1]} × model {anova_sentence(res, inter)}. A large three-way term says the "
                     "models differ in their profiles; it does not say the difference follows family lines.")
    if res["mixed"] is not None:
        m = res["mixed"]
        three = m[m["term"].str.count(":") == 2]
        caveat = ("A random intercept does not absorb each model's own profile, so these p-values treat prompts "
                  "as independent replicates; the model-level permutation test above is the stricter test of a "
                  "family effect.")
        if len(three) == 1:
            r = three.iloc[0]
            lines.append(f"- Mixed model (random intercept per model), family × {by[0]} × {by[1]} term: "
                         f"{r.estimate:.1f} rank points [95% CI {r.ci_low:.1f}, {r.ci_high:.1f}], p = {r.p:.2g}. "
                         + caveat)
        elif len(three) > 1:
            r = three.loc[three["estimate"].abs().idxmax()]
            lines.append(f"- Mixed model (random intercept per model): {int((three['p'] < 0.05).sum())} of "
                         f"{len(three)} family × {by[0]} × {by[1]} terms have p < 0.05 (largest: {r.term}, "
                         f"{r.estimate:.1f} rank points [95% CI {r.ci_low:.1f}, {r.ci_high:.1f}]). " + caveat)
    for n in s["notes"]:
        lines.append(f"- Note: {n}.")
    return "\n".join(lines)


def direction_markdown(perm: pd.DataFrame, *, category: str = "category", valence: str = "valence",
                       families: Sequence[str] = ("Gemma", "Llama")) -> str:
    """Per valence, which categories each family ranks higher (point estimates; FDR-significant ones in bold)."""
    fa, fb = families
    lines = []
    for v, g in perm.groupby(valence, sort=True):
        parts = []
        for fam, mask in ((fa, g["mean_a"] < g["mean_b"]), (fb, g["mean_a"] > g["mean_b"])):
            cats = [f"**{c}**" if r else str(c) for c, r in zip(g.loc[mask, category], g.loc[mask, "reject"])]
            parts.append(f"{fam} ranks higher: {', '.join(cats) if cats else 'none'}")
        lines.append(f"- Under {v} prompts — " + "; ".join(parts) + ".")
    return "\n".join(lines)


def scores_markdown(tables: dict[str, pd.DataFrame], *, words_per_category: int | None = None,
                    compute_words_per_category: int | None = None) -> str:
    """What a value chapter scored: the published RMs by family, the computed models, prompts and words."""
    published = tables["published"]
    n_pub = published.groupby("family")["model"].nunique()
    lines = [f"Published scores: {published['model'].nunique()} RMs ("
             + ", ".join(f"{v} {k}-based" for k, v in n_pub.items())
             + f"), {published['prompt_key'].nunique()} prompts, {published['word'].nunique()} words."]
    if "compute" in tables:
        c = tables["compute"]
        lines.append(f"Computed scores: {c['model'].nunique()} model(s) ({', '.join(sorted(c['model'].unique()))}), "
                     f"{c['prompt_key'].nunique()} prompts, {c['word'].nunique()} words. The prompts are "
                     f"{describe_prompt_subset(c['prompt_key'].unique())}: a subset with at least two prompts of "
                     "each valence (the replicates when a family has one model), because each prompt costs one pass "
                     "over all words per model and the 2 CPU cores of the default machine cannot afford all 54 "
                     "(see benchmarks/value_profiles_cost.py). Pass `COMPUTE_PROMPT_KEYS` to use more on a GPU."
                     + (f" For the same reason the words are a seeded sample of {compute_words_per_category} per "
                        "category (`COMPUTE_WORDS_PER_CATEGORY`)." if compute_words_per_category is not None else ""))
    if words_per_category is not None:
        lines.append(f"All analyses use a seeded sample of {words_per_category} words per category "
                     "(`WORDS_PER_CATEGORY`), so ranks are among those words only.")
    return "\n\n".join(lines)


def score_label(key: str, table: pd.DataFrame) -> str:
    """'Published RM scores', or 'Computed scores (<reward kinds>)'."""
    if key == "published":
        return "Published RM scores"
    return "Computed scores (" + ", ".join(sorted(table["reward_kind"].unique())) + ")"


def missing_families_markdown(tables: dict[str, pd.DataFrame], results: dict, families: Sequence[str]) -> str:
    """One line per table left out of the family tests because it lacks one of the two families ('' if none)."""
    return "\n\n".join(
        f"**{k}**: the models do not include both {families[0]}- and {families[1]}-based ones "
        f"(families: {sorted(tables[k]['family'].unique())}), so there is no family comparison."
        for k in tables if k not in results)


def word_pair_markdown(pair: pd.DataFrame | None, ranks: pd.DataFrame, first: str, second: str, *,
                       lexicon: str, models: Sequence[str] = ()) -> str:
    """Where two words rank for each RM (``pair``: :func:`rmlib.analysis.values.word_pair_table`), naming
    ``models`` (nicknames) and counting by base family."""
    if pair is None:
        return (f"This run's word list does not include both *{first}* and *{second}* (`WORDS`), so the comparison "
                "is skipped.")
    by_fam = pair.groupby("family")["first"].agg(
        lambda s: f"{(s == first).sum()} of {len(s)} rank {first} above {second}")
    named = pair.set_index("nickname")
    return (f"Ranks among the {int(ranks['n_words'].iloc[0])} {lexicon} (1 = the RM's best answer). "
            + " ".join(f"**{m}** ranks *{first}* {named.loc[m, first]:.0f} and *{second}* {named.loc[m, second]:.0f}."
                       for m in models if m in named.index)
            + " By base family: " + "; ".join(f"{f}: {t}" for f, t in by_fam.items()) + ".")


def comparison_markdown(comparison: dict | None, *, mode: str, families: Sequence[str]) -> str:
    """Whether computed scores show the published pattern (:func:`rmlib.analysis.families.compare_with_published`),
    or why there is no comparison."""
    if comparison is None:
        if mode == "compute":
            return "No family comparison is possible for the computed models (see above)."
        return ("This page was run in `published` mode; rerun it with `MODE = \"compute\"` to score "
                "the embedded models (or any RM) and compare.")
    c = comparison
    return (f"On the same {c['n_prompts']} prompts and {c['n_words']} words, the "
            f"{families[0]}-minus-{families[1]} difference in median rank has the **same sign in {c['same']} of "
            f"{c['panels']} panels** for the computed scores as for the published RMs (chance alone gives about "
            f"half). {c['n_significant']} computed panel(s) are significant after FDR. "
            + ("The computed models are one per family, so at most this says these particular models differ, "
               "not their families. " if c["unit"] == "prompt" else "")
            + ("Their scores are LM log-probs (implicit rewards), which mostly reflect how frequent and short a word "
               "is, not trained RM rewards: agreement or disagreement here is weak evidence either way."
               if c["implicit"] else ""))


def interaction_markdown(t: dict) -> str:
    """The model-level test of the family x category x valence interaction (:func:`rmlib.analysis.families.
    interaction_test`), in words: its estimate, its sign against the claim, its p and the smallest p it could give."""
    right = t["difference"] * t["claimed_sign"] > 0
    sig = t["p"] < 0.05
    if sig:
        verdict = ("the interaction is clear at the level of models, in the claimed direction" if right else
                   "the interaction is clear at the level of models, but in the opposite direction to the claim")
    else:
        verdict = ("the contrast points the claimed way, but with " f"{t['n_a']} vs {t['n_b']} models the test "
                   "cannot exclude chance" if right else "the contrast does not point the claimed way, and the "
                   "test cannot exclude chance")
    return (f"Interaction contrast, {t['contrast']}: **{t['difference']:+.1f} rank points**, exact permutation "
            f"p = {t['p']:.3g} over {t['n_a']} vs {t['n_b']} models (the smallest p this test can give is "
            f"{t['min_attainable_p']:.2g}). In plain words: {verdict}.")
