"""The big_two exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers, with a
message that names the mistake."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rmbook import course
from rmbook.book.course import reference_solution


@pytest.mark.parametrize("ex", ["big_two.median_ranks", "big_two.permutation"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 4


def test_each_chapter_of_the_shared_template_keeps_its_own_exercises():
    from rmbook.book import chapter

    def ids(name):
        return {(c["metadata"]["rmlib"].get("exercise") or {}).get("id") for c in chapter(name).cells()["cells"]
                if "rmlib" in c["metadata"]} - {None}

    assert ids("big_two") == {"big_two.median_ranks", "big_two.permutation"}
    assert ids("moral_foundations") == {"moral_foundations.hedges_g"}


def _medians(rewards, categories, method="average", sign=-1, stat=np.median, shift=0):
    r = stats.rankdata(sign * np.asarray(rewards, float), method=method) + shift
    c = np.asarray(categories)
    return {k: float(stat(r[c == k])) for k in np.unique(c)}


def ascending(rewards, categories):
    return _medians(rewards, categories, sign=1)


def min_ties(rewards, categories):
    return _medians(rewards, categories, method="min")


def ordinal_ties(rewards, categories):
    return _medians(rewards, categories, method="ordinal")


def mean_rank(rewards, categories):
    return _medians(rewards, categories, stat=np.mean)


def zero_based(rewards, categories):
    return _medians(rewards, categories, shift=-1)


def within_category(rewards, categories):
    s = pd.Series(np.asarray(rewards, float))
    return s.groupby(np.asarray(categories)).apply(lambda g: float(np.median(stats.rankdata(-g.to_numpy())))).to_dict()


@pytest.mark.parametrize("wrong, hint", [(ascending, "HIGHEST reward"), (min_ties, "'min' ranks"),
                                         (ordinal_ties, "'ordinal' ranks"), (mean_rank, "mean rank"),
                                         (zero_based, "start at 0"), (within_category, "among themselves")])
def test_median_ranks_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("big_two.median_ranks", wrong)


def _welch(x, mask):
    a, b = x[mask], x[~mask]
    return (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))


def _model_level(df, n, seed, *, one_sided=False, plus_one=True, rng=None):
    per = df.groupby("model").agg(family=("family", "first"), v=("median_rank", "mean"))
    x = per["v"].to_numpy()
    mask = (per["family"] == sorted(per["family"].unique())[0]).to_numpy()
    stat = (lambda m: _welch(x, m)) if one_sided else (lambda m: abs(_welch(x, m)))
    obs = stat(mask)
    rng = rng or np.random.default_rng(seed)
    k = sum(stat(rng.permutation(mask)) >= obs for _ in range(n))
    return (k + 1) / (n + 1) if plus_one else k / n


def word_level(df, n, seed):
    """Shuffles the family labels over the rows (words), not over the models."""
    x, mask = df["median_rank"].to_numpy(), (df["family"] == sorted(df["family"].unique())[0]).to_numpy()
    obs, rng = abs(_welch(x, mask)), np.random.default_rng(seed)
    return (sum(abs(_welch(x, rng.permutation(mask))) >= obs for _ in range(n)) + 1) / (n + 1)


def one_sided(df, n, seed):
    return _model_level(df, n, seed, one_sided=True)


def no_plus_one(df, n, seed):
    return _model_level(df, n, seed, plus_one=False)


def unseeded(df, n, seed):
    return _model_level(df, n, seed, rng=np.random.default_rng())


@pytest.mark.parametrize("wrong, hint", [(word_level, "not models"), (one_sided, "one-sided"),
                                         (no_plus_one, r"\(k \+ 1\) / \(n \+ 1\)"), (unseeded, "same seed")])
def test_permutation_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("big_two.permutation", wrong)
