"""The distributions chapter's sentences: what each run holds, how skewed the rewards are, what fills each tail."""
from __future__ import annotations

import pandas as pd

__all__ = ["run_markdown", "skew_markdown", "composition_markdown", "word_share_markdown"]


def run_markdown(name: str, df: pd.DataFrame) -> str:
    """'**published**: 3 models × 400 answers each. All are reward models.'"""
    kinds = df.groupby("model")["reward_kind"].first()
    n_lm = int(kinds.str.startswith("LM").sum())
    sizes = df.groupby("model").size()
    n_ans = f"{sizes.min():,}" if sizes.min() == sizes.max() else f"{sizes.min():,} to {sizes.max():,}"
    return (f"**{name}**: {df['model'].nunique()} models × {n_ans} answers each. "
            + (f"{n_lm} are LMs whose reward is the log-probability of the answer (an **implicit** "
               "reward)." if n_lm else "All are reward models."))


def skew_markdown(mom: pd.DataFrame, asym: pd.DataFrame) -> str:
    """How many distributions are skewed each way (CI excluding 0), the most asymmetric one, and the tail ratio."""
    sk = mom[mom["moment"] == "skewness"]
    neg, pos = sk[sk["ci_high"] < 0], sk[sk["ci_low"] > 0]
    most = sk.loc[sk["estimate"].abs().idxmax()]
    return (f"{len(neg)} of {len(sk)} score distributions are negatively skewed with a CI excluding 0 and {len(pos)} "
            f"positively skewed. The most asymmetric is {most.model} ({most.run}, skewness {most.estimate:.2f}, "
            f"95% CI {most.ci_low:.2f} to {most.ci_high:.2f}). The tail-asymmetry ratio is below 1 (a longer low "
            f"tail) for {int((asym['ci_high'] < 1).sum())} and above 1 for {int((asym['ci_low'] > 1).sum())} of "
            "them.")


def composition_markdown(name: str, comp: pd.DataFrame) -> str:
    """Per model, the kind of answer that dominates its top and its bottom tail, with its lift over the whole set."""
    lines = []
    k = int(comp.loc[comp["tail"] == "top", "n"].iloc[0])
    for m, c in comp.groupby("model", sort=False):
        top = c[c["tail"] == "top"].nlargest(1, "share").iloc[0]
        bot = c[c["tail"] == "bottom"].nlargest(1, "share").iloc[0]
        lines.append(f"* **{m}**: the top {k} are mostly *{top.value}* ({top.share:.0%}, {top.lift:.1f}× its "
                     f"share overall); the bottom {k} mostly *{bot.value}* ({bot.share:.0%}, {bot.lift:.1f}×).")
    return f"*{name}*:\n" + "\n".join(lines)


def word_share_markdown(features: pd.DataFrame) -> str:
    """The share of whole words in the top vs the bottom tail, per model, with the CI of the difference."""
    w = features[features["feature"] == "is_word"]
    return "Share of whole words, top vs bottom tail: " + "; ".join(
        f"{r.model} {r.top_mean:.0%} vs {r.bottom_mean:.0%} (difference {r.difference:+.0%}, 95% CI "
        f"{r.ci_low:+.0%} to {r.ci_high:+.0%})" for r in w.itertuples()) + "."
