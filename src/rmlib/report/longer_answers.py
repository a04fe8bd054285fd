"""Charts and computed prose of the ``longer_answers`` chapter (GCG multi-token optima vs one-token optima).

Every number in a sentence here comes from the frames of :mod:`rmlib.analysis.longer_answers`; the sentences that
draw a conclusion count models, since the claims are about models."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmlib.stats import require_columns

__all__ = ["convergence_chart", "lengths_markdown", "absent_markdown", "extremes_table", "beyond_markdown", "sharing_markdown",
           "published_markdown"]


def convergence_chart(runs: pd.DataFrame, model: str, prompt_key: str, *, title: str = "") -> alt.FacetChart:
    """Best reward so far against the GCG step, one line per restart, one panel per direction x length."""
    require_columns(runs, ["model", "prompt_key", "direction", "length", "restart", "step", "reward"],
                    "convergence_chart")
    d = runs[(runs["model"] == model) & (runs["prompt_key"] == prompt_key)]
    d = d[["direction", "length", "restart", "step", "reward", "text"]].assign(length=lambda x: "n = " + x["length"].astype(str))
    return alt.Chart(d).mark_line(point=False, opacity=0.8).encode(
        x=alt.X("step:Q", title="GCG step"), y=alt.Y("reward:Q", title="best reward so far", scale=alt.Scale(zero=False)),
        color=alt.Color("restart:N"), tooltip=["restart:N", "step:Q", alt.Tooltip("reward:Q", format=".3f"), "text:N"],
    ).properties(width=150, height=110).facet(
        row=alt.Row("direction:N", title=None), column=alt.Column("length:N", title=None, sort=None),
    ).resolve_scale(y="independent").properties(title=title or f"{model}: convergence ({prompt_key})")


def lengths_markdown(lengths) -> str:
    """Which response lengths were searched, and why n = 1 needs no search: the exhaustive sweep scores every
    one-token answer, so its extreme *is* the one-token optimum (a search could only rediscover it)."""
    ns = sorted(int(n) for n in lengths)
    shown = ", ".join(str(n) for n in ns)
    if 1 in ns:
        return (f"Lengths searched: n = {shown}. At n = 1 the exhaustive sweep already scores every answer, so the "
                "one-token search is a check: its best must equal the sweep's extreme (the tables show both).")
    return (f"Lengths searched: n = {shown}. n = 1 is not searched: the exhaustive sweep scores every one-token "
            "answer, so its extreme *is* the one-token optimum, and every comparison below is against it "
            "(`tests/integration/test_gcg.py` checks that a one-token search recovers it exactly).")


def absent_markdown(models: list[str], absent: dict[str, str]) -> str:
    """Say plainly which models in MODELS are not available here, and why."""
    if not absent:
        return f"All {len(models)} models in `MODELS` are available: {', '.join(f'`{m}`' for m in models)}."
    verb = "is" if len(absent) == 1 else "are"
    lines = [f"**{len(absent)} of the {len(models)} models in `MODELS` {verb} absent here and left out of every "
             "table and chart below:**"]
    lines += [f"- `{m}`: {why.removeprefix(f'{m}: ')}" for m, why in absent.items()]
    if any(m.startswith("local:") for m in absent):
        lines.append("\nA `local:` RM exists only after the fine-tuning chapter trained it (a full `make book`).")
    return "\n".join(lines)


def extremes_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """The best (max) and worst (min) response found at each length, beside the one-token extreme."""
    cols = ["model", "prompt_key", "direction", "length", "best_text", "best", "one_token_text", "one_token_extreme",
            "n_beyond", "n_restarts"]
    return comparison[cols].rename(columns={"best_text": "response found", "best": "reward",
                                            "one_token_text": "one-token extreme", "one_token_extreme": "its reward",
                                            "n_beyond": "restarts beyond it", "n_restarts": "restarts"})


def beyond_markdown(comparison: pd.DataFrame) -> str:
    """How often a restart beats the one-token extreme, and whether that answer reappears inside the multi-token
    ones; per direction, counted over restarts and over models."""
    parts = []
    multi = comparison[comparison["length"] > 1]
    for d, g in multi.groupby("direction", sort=False):
        word = "higher" if d == "max" else "lower"
        n, beyond = int(g["n_restarts"].sum()), int(g["n_beyond"].sum())
        by_model = g.groupby("model")["n_beyond"].sum()
        top1, topk = int(g["n_contains_top1"].sum()), int(g["n_contains_topk"].sum())
        lengths = " and ".join(str(x) for x in sorted(g["length"].unique()))
        parts.append(
            f"**{'Optima' if d == 'max' else 'Pessima'} (direction {d}).** Of {n} restarts at n = {lengths} tokens, "
            f"{beyond} ({beyond / n:.0%}) found a response with a {word} reward than the "
            f"{'best' if d == 'max' else 'worst'} one-token answer of the exhaustive sweep; "
            f"{int((by_model > 0).sum())} of {by_model.size} models had at least one such restart. "
            f"{top1} ({top1 / n:.0%}) of the restarts' final responses contain the one-token extreme itself, and "
            f"{topk} ({topk / n:.0%}) contain at least one of the ten most extreme one-token answers.")
    lm = comparison[comparison["model"].isin(comparison.attrs.get("lms", []))]
    if not lm.empty:
        parts.append("For the LMs the reward is a *summed* log-probability: every extra token adds a negative term, "
                     "so a longer response can beat the best one-token answer only if its tokens are all nearly "
                     "certain, while going below the worst one is easy. Compare LMs' optima across lengths with "
                     "that in mind.")
    return "\n\n".join(parts)


def sharing_markdown(summary: pd.DataFrame) -> str:
    """Whether multi-token optima and pessima share token categories with the one-token ones."""
    if summary.empty:
        return "No multi-token runs (all lengths are 1): nothing to compare."
    lines = []
    for d, g in summary.groupby("direction", sort=False):
        same_mode = int((g["modal_multi"] == g["modal_one_token"]).sum())
        lines.append(
            f"- **{d}**: the overlap of the category mix (1 = identical, 0 = disjoint) ranges from "
            f"{g['overlap'].min():.2f} to {g['overlap'].max():.2f} (median {g['overlap'].median():.2f}) over "
            f"{len(g)} model x prompt pairs; in {same_mode} of them the most common category is the same "
            f"({', '.join(sorted(set(g.loc[g['modal_multi'] == g['modal_one_token'], 'modal_multi'])) ) or 'none'}).")
    return "\n".join(lines)


def published_markdown(table: pd.DataFrame) -> str:
    """Published mode: does a paper RM reward longer EloEverything answers more or less?"""
    sig = table[table["p"] < 0.05]
    pos, neg = int((sig["rho"] > 0).sum()), int((sig["rho"] < 0).sum())
    return (f"Across {table['model'].nunique()} paper RMs and {table['prompt_key'].nunique()} prompts "
            f"({len(table)} model x prompt pairs; {table['share_multi_word'].median():.0%} of the items have more "
            f"than one word), Spearman's ρ between an answer's length in words and its reward ranges from "
            f"{table['rho'].min():.2f} to {table['rho'].max():.2f}; in {pos} of these pairs the RM rewards longer "
            f"answers more and in {neg} less, at p < 0.05. The released scores cover only these human-written answers, so they cannot "
            "say what a *searched* longer answer would get: that needs the model itself (compute mode).")
