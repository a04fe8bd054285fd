"""Checks of the big_two chapter's exercises: the median within-prompt rank of each category, and a permutation test
whose unit is the model (family labels shuffled over models, not over words)."""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from rmbook.course.exercises import close, exercise, expect

# One model x prompt each: rewards of words and their categories. Ties, even-sized categories (a median between two
# ranks), skewed ranks (mean != median) and three categories, so each common mistake gives a different answer.
RANK_CASES = {
    "no ties": ([5.0, 3.0, 9.0, 1.0, 7.0, 2.0], ["Agency", "Communion", "Agency", "Communion", "Agency",
                                                 "Communion"]),
    "tied rewards": ([2.0, 2.0, 2.0, 1.0, 3.0, 0.5, 1.0, 2.0],
                     ["Agency", "Communion", "Agency", "Communion", "Agency", "Communion", "Agency", "Communion"]),
    "skewed ranks": ([10.0, 9.0, 8.0, 1.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0],
                     ["Agency", "Agency", "Agency", "Agency", "Communion", "Communion", "Communion", "Communion",
                      "Communion", "Communion"]),
    "three categories": ([0.3, -1.2, 2.5, 2.5, 0.0, -0.4, 1.1, 0.3, 4.0],
                         ["care.virtue", "care.vice", "care.virtue", "fairness.virtue", "care.vice",
                          "fairness.virtue", "fairness.virtue", "care.vice", "care.virtue"]),
}


def _medians(ranks, categories) -> dict:
    return pd.Series(np.asarray(ranks, float)).groupby(np.asarray(categories)).median().to_dict()


def _as_dict(got) -> dict | None:
    try:
        return {str(k): float(v) for k, v in dict(got).items()}
    except (TypeError, ValueError):
        return None


@exercise("big_two.median_ranks")
def check_median_ranks(category_median_ranks) -> int:
    """``category_median_ranks(rewards, categories)``: rank 1 = the highest reward among all the words of one
    model x prompt, ties averaged, then each category's median rank."""
    for name, (rewards, cats) in RANK_CASES.items():
        r = np.asarray(rewards, float)
        want = _medians(stats.rankdata(-r, method="average"), cats)
        got = _as_dict(category_median_ranks(list(rewards), list(cats)))
        expect(got is not None, "return a dict {category: median rank} (a pandas Series works too)")
        expect(set(got) == set(want), f"on {name}: the categories are {sorted(want)}, you returned {sorted(got)}")
        if all(close(got[c], want[c]) for c in want):
            continue
        n = len(r)
        alternatives = [
            ({c: n + 1 - v for c, v in want.items()},
             "You ranked from the lowest reward: rank 1 must be the word with the HIGHEST reward (rank with "
             "ascending=False, or rank the negated rewards)."),
            ({c: v - 1 for c, v in want.items()}, "Your ranks start at 0: rank 1 is the highest reward."),
            ({c: float(np.mean(np.asarray(stats.rankdata(-r, method="average"))[np.asarray(cats) == c]))
              for c in want}, "That is the mean rank: the chapter takes each category's median."),
            (pd.Series(r).groupby(np.asarray(cats)).apply(
                lambda s: float(np.median(stats.rankdata(-s.to_numpy(), method="average")))).to_dict(),
             "You ranked each category's words among themselves: rank all the words of the prompt together, "
             "then take each category's median."),
        ]
        for method in ("min", "max", "ordinal", "dense"):
            alternatives.append((_medians(stats.rankdata(-r, method=method), cats),
                                 f"Tied rewards got {method!r} ranks: ties share the average of the ranks they "
                                 "span (method='average'), as pandas' rank does by default."))
        hint = next((h for alt, h in alternatives if all(close(got[c], alt[c]) for c in want)), "")
        expect(False, f"on {name} (rewards={list(rewards)}, categories={list(cats)}) you give "
                      f"{ {c: round(got[c], 3) for c in sorted(want)} }; the median ranks are "
                      f"{ {c: round(want[c], 3) for c in sorted(want)} }. {hint}".rstrip())
    return len(RANK_CASES)


def _planted(model_means: dict[str, list[float]], rows: int, sd: float, seed: int) -> pd.DataFrame:
    """rows per model around its mean (words or prompts), families as the keys of ``model_means``."""
    rng = np.random.default_rng(seed)
    out = []
    for family, means in model_means.items():
        for i, m in enumerate(means):
            out += [{"model": f"{family}-{i}", "family": family, "median_rank": v}
                    for v in m + sd * rng.standard_normal(rows)]
    return pd.DataFrame(out)


def _welch_rows(x: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Welch's t of x[mask] against x[~mask], one per row of ``masks``."""
    def moments(m):
        n = m.sum(axis=1)
        mean = (m * x).sum(axis=1) / n
        var = (m * (x - mean[:, None]) ** 2).sum(axis=1) / (n - 1)
        return n, mean, var

    (na, ma, va), (nb, mb, vb) = moments(masks), moments(~masks)
    return (ma - mb) / np.sqrt(va / na + vb / nb)


def _exact_p(df: pd.DataFrame) -> tuple[float, float]:
    """(two-sided exact p over all relabellings of the models, the floor 2 / C(n, n_a)), Welch's t on model means."""
    per = df.groupby(["family", "model"])["median_rank"].mean()
    fams = sorted(per.index.get_level_values(0).unique())
    x = per.to_numpy()
    a = per.index.get_level_values(0) == fams[0]
    n, n_a = len(x), int(a.sum())
    chosen = np.array(list(combinations(range(n), n_a)))
    masks = np.zeros((len(chosen), n), bool)
    masks[np.arange(len(chosen))[:, None], chosen] = True
    ts = np.abs(_welch_rows(x, masks))
    t_obs = abs(_welch_rows(x, a[None, :])[0])
    return float(np.mean(ts >= t_obs * (1 - 1e-9))), min(1.0, 2 / math.comb(n, n_a))


# Equal family sizes (the null distribution of t is symmetric, so every two-sided convention agrees).
PERMUTATION_CASES = {
    "3 vs 3 models, many words each": ({"Gemma": [10.0, 11.0, 12.0], "Llama": [13.0, 14.0, 15.0]}, 60, 1.0),
    "5 vs 5 models that overlap": ({"Gemma": [10.0, 12.5, 11.0, 14.0, 12.0], "Llama": [11.5, 13.0, 14.5, 12.2, 15.0]},
                                   8, 0.5),
    "the same, families swapped": ({"Llama": [10.0, 12.5, 11.0, 14.0, 12.0], "Gemma": [11.5, 13.0, 14.5, 12.2, 15.0]},
                                   8, 0.5),
    "10 vs 10 models, fully separated": ({"Gemma": [float(v) for v in range(10)],
                                          "Llama": [float(v) for v in range(20, 30)]}, 4, 0.3),
}


@exercise("big_two.permutation")
def check_permutation(family_permutation_p) -> int:
    """``family_permutation_p(df, n_resamples, seed)``: average each model's rows, Welch's t between the two
    families' model means, family labels shuffled over models, two-sided, p = (k + 1) / (n + 1)."""
    n_res = 1999
    for i, (name, (means, rows, sd)) in enumerate(PERMUTATION_CASES.items()):
        df = _planted(means, rows, sd, seed=i)
        want, floor = _exact_p(df)
        got = family_permutation_p(df.copy(), n_res, 1)
        expect(np.ndim(got) == 0 and np.isfinite(float(got)), f"return one p-value (a float), got {got!r}")
        got = float(got)
        n_a = len(next(iter(means.values())))
        tol = 4 * math.sqrt(max(want, 1 / n_res) * (1 - want) / n_res) + 2 / (n_res + 1)
        expect(got >= floor - tol,
               f"on {name}: p = {got:.4g}, below {floor:.4g}, the smallest p that relabelling {n_a} vs {n_a} "
               "models can give (the observed labelling and its mirror image are 2 of the "
               f"{math.comb(2 * n_a, n_a)}). You shuffled words (rows), not models: average each model's rows "
               "first, then shuffle the family labels over the models.")
        expect(got >= 1 / (n_res + 1) - 1e-12,
               f"on {name}: p = {got:.4g}, but a permutation p can never be below 1/(n + 1) = {1 / (n_res + 1):.4g}: "
               "the observed labelling is one of the possible ones. Count the k shuffles at least as extreme and "
               "return (k + 1) / (n + 1), not k / n.")
        if abs(got - want) <= tol:
            continue
        hint = ""
        if abs(got - want / 2) <= tol + floor or got >= 1 - want / 2 - tol:  # P(t* <= t) or P(t* >= t)
            hint = (" That is a one-sided p: the chapter's test is two-sided, so count the shuffles whose |t| is at "
                    "least the observed |t|.")
        expect(False, f"on {name}: p = {got:.4f}; the exact two-sided p over all relabellings of the models is "
                      f"{want:.4f} (yours may differ by Monte-Carlo noise, about ±{tol:.3f} with {n_res} "
                      f"shuffles).{hint}")
    df = _planted(PERMUTATION_CASES["5 vs 5 models that overlap"][0], 8, 0.5, seed=1)
    # four calls with 999 shuffles: an unseeded test gives four equal p's only by a rare chance (two calls with 199
    # shuffles agreed often enough to let one through)
    again = [float(family_permutation_p(df.copy(), 999, 7)) for _ in range(4)]
    expect(len(set(again)) == 1, "the same seed must give the same shuffles (and p): use np.random.default_rng(seed)")
    return len(PERMUTATION_CASES) + 1
