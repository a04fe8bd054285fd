"""How differently do reward models rank the same items?

All functions take a *wide* score table: one row per item (token, word, EloEverything item), one column per model,
higher score = preferred. They return square model-by-model DataFrames or tidy tables, so a chapter can draw a heatmap
or an MDS map directly.

Correlations come from scipy, RBO from the ``rbo`` package (checked against hand-computed values), MDS is classical
(Torgerson) MDS with numpy's symmetric eigensolver, and the representational-similarity test is a Mantel test run
through ``scipy.stats.permutation_test``; when two designs overlap (the models that share a base also share a size),
the partial Mantel test (Smouse, Long & Sokal 1986) asks whether one still matches with the other held fixed.
"""
from __future__ import annotations

from itertools import combinations
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmlib.errors import RmlibError
from rmlib.stats.permutation import ALTERNATIVE, EXACT_LIMIT, label_permutation_p

__all__ = ["check_wide_scores", "rbo_ext", "pairwise_similarity", "similarity_matrices", "classical_mds",
           "same_group_design", "difference_design", "mantel_test", "partial_mantel_test", "rsa",
           "shuffled_similarity_baseline", "upper_triangle", "upper_pairs"]

METHODS = ("kendall", "spearman", "rbo")


def check_wide_scores(scores: pd.DataFrame, min_models: int = 2, allow_nan: bool = False) -> pd.DataFrame:
    """Validate a wide item x model score table and return its numeric copy."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a pandas DataFrame (rows items, columns models), got {type(scores).__name__}")
    if scores.shape[1] < min_models:
        raise ValueError(f"scores needs at least {min_models} model columns, got {scores.shape[1]}: {list(scores.columns)}")
    if scores.shape[0] < 3:
        raise ValueError(f"scores needs at least 3 items (rows) to compare rankings, got {scores.shape[0]}")
    if scores.columns.duplicated().any():
        raise ValueError(f"duplicate model columns: {list(scores.columns[scores.columns.duplicated()])}")
    if scores.index.duplicated().any():
        raise ValueError("duplicate item labels in the index; RBO needs unique items (deduplicate or reset_index)")
    non_numeric = [c for c in scores.columns if not pd.api.types.is_numeric_dtype(scores[c])]
    if non_numeric:
        raise ValueError(f"non-numeric model columns {non_numeric}; pass only score columns (set the item as index)")
    out = scores.astype(float)
    if not allow_nan and out.isna().any().any():
        bad = out.columns[out.isna().any()].tolist()
        raise ValueError(f"NaN scores in columns {bad}; drop or restrict to items every model scored (e.g. .dropna())")
    return out


def rbo_ext(ranking_a: Sequence, ranking_b: Sequence, p: float = 0.98) -> float:
    """Extrapolated rank-biased overlap (Webber et al. 2010, eq. 32) of two ranked lists, best first. ``p`` sets the
    top-weighting: the first d ranks carry most of the weight when d ~ 1/(1-p) (p=0.98 -> about the top 50).
    Delegates to the ``rbo`` package (``RankingSimilarity.rbo_ext``), not a declared dependency (pyproject.toml)."""
    try:
        from rbo import RankingSimilarity
    except ImportError as exc:
        raise RmlibError("rank-biased overlap needs rbo: pip install --no-deps rbo==0.1.3 (make venv does)") from exc
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    a, b = list(ranking_a), list(ranking_b)
    if len(a) != len(set(a)) or len(b) != len(set(b)):
        raise ValueError("rankings must not contain duplicate items")
    return float(RankingSimilarity(a, b).rbo_ext(p=p))


def _ranked_items(col: pd.Series, depth: int | None, bottom: bool) -> list:
    # Stable sort so that ties keep their table order (documented in pairwise_similarity).
    order = col.sort_values(ascending=bottom, kind="mergesort").index.tolist()
    return order if depth is None else order[:depth]


def pairwise_similarity(
    scores: pd.DataFrame,
    method: str = "kendall",
    *,
    p: float = 0.98,
    depth: int | None = None,
    bottom: bool = False,
) -> pd.DataFrame:
    """Square model x model similarity of the score columns.

    method: ``kendall`` (tau-b, handles ties), ``spearman`` (rho) or ``rbo`` (extrapolated RBO with parameter ``p``).
    For RBO, ``depth`` truncates both rankings to their top ``depth`` items and ``bottom=True`` ranks from the lowest
    score up, to compare the pessimal end. Tied scores are ordered by table order for RBO (a strict ranking is required).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be a positive integer or None, got {depth}")
    s = check_wide_scores(scores)
    models = list(s.columns)
    out = pd.DataFrame(np.eye(len(models)), index=models, columns=models)
    ranked = {m: _ranked_items(s[m], depth, bottom) for m in models} if method == "rbo" else None
    for a, b in combinations(models, 2):
        if method == "kendall":
            val = stats.kendalltau(s[a].to_numpy(), s[b].to_numpy(), variant="b").statistic
        elif method == "spearman":
            val = stats.spearmanr(s[a].to_numpy(), s[b].to_numpy()).statistic
        else:
            val = rbo_ext(ranked[a], ranked[b], p=p)
        out.loc[a, b] = out.loc[b, a] = val
    out.index.name = out.columns.name = "model"
    return out


def similarity_matrices(scores: pd.DataFrame, *, p: float = 0.98, depth: int | None = None) -> dict[str, pd.DataFrame]:
    """All three similarity matrices at once, keyed by method name."""
    return {m: pairwise_similarity(scores, m, p=p, depth=depth) for m in METHODS}


def _check_square(mat: pd.DataFrame, name: str) -> np.ndarray:
    if not isinstance(mat, pd.DataFrame) or mat.shape[0] != mat.shape[1]:
        raise ValueError(f"{name} must be a square DataFrame (models x models), got shape {getattr(mat, 'shape', None)}")
    if list(mat.index) != list(mat.columns):
        raise ValueError(f"{name} must have the same model labels, in the same order, on rows and columns")
    arr = mat.to_numpy(dtype=float)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    if not np.allclose(arr, arr.T, atol=1e-9):
        raise ValueError(f"{name} must be symmetric")
    return arr


def classical_mds(dissimilarity: pd.DataFrame, n_components: int = 2) -> tuple[pd.DataFrame, pd.Series]:
    """Classical (Torgerson) MDS of a dissimilarity matrix such as ``1 - tau``.

    Returns (coordinates, explained): coordinates has one row per model and columns ``dim1..dimK``; ``explained`` is
    each kept dimension's share of the positive eigenvalue mass (how faithful a 2-D map is). Signs of axes are
    arbitrary. scikit-learn is not needed: classical MDS is one double-centring and an eigendecomposition.
    """
    d = _check_square(dissimilarity, "dissimilarity")
    n = d.shape[0]
    if n < 3:
        raise ValueError(f"MDS needs at least 3 models, got {n}")
    if not 1 <= n_components < n:
        raise ValueError(f"n_components must be between 1 and {n - 1}, got {n_components}")
    if (d < -1e-12).any() or not np.allclose(np.diag(d), 0):
        raise ValueError("dissimilarity must be non-negative with a zero diagonal (pass 1 - similarity)")
    j = np.eye(n) - np.ones((n, n)) / n
    b = -0.5 * j @ (d**2) @ j
    evals, evecs = np.linalg.eigh(b)
    order = np.argsort(evals)[::-1]
    evals, evecs = evals[order], evecs[:, order]
    kept = np.clip(evals[:n_components], 0, None)
    coords = evecs[:, :n_components] * np.sqrt(kept)
    cols = [f"dim{i + 1}" for i in range(n_components)]
    pos = evals[evals > 0].sum()
    explained = pd.Series(kept / pos if pos > 0 else np.zeros(n_components), index=cols, name="explained")
    return pd.DataFrame(coords, index=dissimilarity.index, columns=cols), explained


def same_group_design(labels: Mapping[str, object] | pd.Series) -> pd.DataFrame:
    """Design matrix (similarity-coded): 1 where two models share a label (base family, developer), else 0."""
    s = pd.Series(labels)
    if s.isna().any():
        raise ValueError(f"missing labels for models {s.index[s.isna()].tolist()}")
    v = s.to_numpy()
    return pd.DataFrame((v[:, None] == v[None, :]).astype(float), index=s.index, columns=s.index)


def difference_design(values: Mapping[str, float] | pd.Series, log: bool = True) -> pd.DataFrame:
    """Design matrix (similarity-coded): minus the absolute difference of a numeric attribute, e.g. size.

    ``log=True`` uses log10 (parameter counts span orders of magnitude). Higher = more alike, as for
    :func:`same_group_design`, so a positive RSA correlation always means "similar models rank alike".
    """
    s = pd.Series(values, dtype=float)
    if s.isna().any():
        raise ValueError(f"missing values for models {s.index[s.isna()].tolist()}")
    if log:
        if (s <= 0).any():
            raise ValueError("log=True needs positive values (e.g. parameter counts)")
        s = np.log10(s)
    v = s.to_numpy()
    return pd.DataFrame(-np.abs(v[:, None] - v[None, :]), index=s.index, columns=s.index)


def upper_triangle(arr) -> np.ndarray:
    """The values above the diagonal of a square matrix (an array or a DataFrame), row by row: one per pair."""
    arr = np.asarray(arr)
    return arr[np.triu_indices(arr.shape[0], k=1)]


def upper_pairs(matrix: pd.DataFrame) -> list[tuple]:
    """(row label, column label) of each value :func:`upper_triangle` returns, in the same order."""
    rows, cols = np.triu_indices(matrix.shape[0], k=1)
    return [(matrix.index[i], matrix.columns[j]) for i, j in zip(rows, cols)]


def _permuted_pairs(mat: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """The upper triangle of ``mat`` with its labels relabelled by each row of ``perms``: (batch, n_pairs)."""
    iu = np.triu_indices(mat.shape[0], k=1)
    return mat[perms[..., iu[0]], perms[..., iu[1]]]


def _symmetric_ranks(mat: np.ndarray) -> np.ndarray:
    """``mat`` with its upper triangle replaced by its average ranks, mirrored: relabelling models permutes these
    ranks, so ranking once serves every permutation (Spearman is Pearson on ranks)."""
    out = np.zeros_like(mat, dtype=float)
    iu = np.triu_indices(mat.shape[0], k=1)
    out[iu] = stats.rankdata(mat[iu])
    out[(iu[1], iu[0])] = out[iu]
    return out


def _standardised(x: np.ndarray) -> np.ndarray:
    """x centred and scaled to unit (population) variance along its last axis; a permutation of x keeps both."""
    x = np.asarray(x, float)
    return (x - x.mean(axis=-1, keepdims=True)) / x.std(axis=-1, keepdims=True)


def mantel_test(a: pd.DataFrame, b: pd.DataFrame, *, method: str = "spearman", n_resamples: int = 9999,
                alternative: str = ALTERNATIVE, seed: int | None = 0, exact_limit: int = EXACT_LIMIT) -> dict:
    """Mantel test: correlation of two model x model matrices' upper triangles, p-value from permuting model labels.

    Labels are permuted jointly on rows and columns of ``b`` (the pairs are not independent, so an ordinary
    correlation p-value would be wrong). Exact (every relabelling) up to :data:`EXACT_LIMIT` relabellings, else
    ``n_resamples`` random ones with the p's standard error (:func:`rmlib.stats.permutation.label_permutation_p`). Two-sided by default:
    the book's convention (a significant r of the other sign is evidence against a claimed similarity, judged by
    the same test). Returns r, p, exact, n_permutations, p_se, n_models, n_pairs, method, alternative.
    """
    _check_method(method)
    ma, mb = _aligned({"a": a, "b": b}, "a Mantel test", {"a": "similarity matrix", "b": "design matrix"})
    n, ua = ma.shape[0], upper_triangle(ma)
    if method == "spearman":
        ua, mb = stats.rankdata(ua), _symmetric_ranks(mb)
    za = _standardised(ua)
    zb = _standardised(upper_triangle(mb))  # a relabelling permutes b's pairs: mean and spread stay

    def statistic(perms):
        return _permuted_pairs(zb_mat, perms) @ za / za.size

    zb_mat = np.zeros_like(mb, dtype=float)
    iu = np.triu_indices(n, k=1)
    zb_mat[iu], zb_mat[(iu[1], iu[0])] = zb, zb
    r = float(zb @ za / za.size)
    test = label_permutation_p(n, statistic, r, n_resamples=n_resamples, alternative=alternative, seed=seed,
                                exact_limit=exact_limit)
    return {"r": r, **test, "n_models": n, "n_pairs": int(ua.size), "method": method, "alternative": alternative}


def _ranked_upper(mat: np.ndarray) -> np.ndarray:
    """The upper triangle of a square matrix as average ranks: Spearman is Pearson on ranks."""
    return stats.rankdata(upper_triangle(mat))


def _partial_r(rxy, rxz, ryz):
    """Partial correlation of x and y given z from the three pairwise correlations (arrays allowed); NaN where z
    explains x or y completely (nothing is left to correlate)."""
    rxy, rxz = np.asarray(rxy, float), np.asarray(rxz, float)
    den = np.sqrt((1 - rxz ** 2) * (1 - ryz ** 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 1e-12, (rxy - rxz * ryz) / np.where(den > 1e-12, den, 1.0), np.nan)


def _check_method(method: str) -> None:
    if method not in ("spearman", "pearson"):
        raise ValueError(f"method must be 'spearman' or 'pearson', got {method!r}")


def _aligned(mats: dict[str, pd.DataFrame], test: str, roles: dict[str, str]) -> list[np.ndarray]:
    """The matrices as square arrays in the first one's model order: the same models, 4 or more, none constant over
    the model pairs (``roles`` names each in the errors)."""
    first = next(iter(mats.values()))
    frames = [m.loc[first.index, first.columns] if set(first.index) == set(m.index) else m for m in mats.values()]
    arrays = [_check_square(m, name) for m, name in zip(frames, mats)]
    if any(list(m.index) != list(first.index) for m in frames):
        got = [str(list(m.index)) for m in frames]
        raise ValueError(f"the {'two' if len(mats) == 2 else 'three'} matrices must cover the same models; got "
                         f"{', '.join(got[:-1])} and {got[-1]}")
    if arrays[0].shape[0] < 4:
        raise ValueError(f"{test} needs at least 4 models, got {arrays[0].shape[0]}")
    for name, m in zip(mats, arrays):
        if np.ptp(upper_triangle(m)) == 0:
            raise ValueError(f"{roles[name]} is constant over model pairs; the correlation is undefined")
    return arrays


def partial_mantel_test(a: pd.DataFrame, b: pd.DataFrame, c: pd.DataFrame, *, method: str = "spearman",
                        n_resamples: int = 9999, alternative: str = ALTERNATIVE, seed: int | None = 0,
                        exact_limit: int = EXACT_LIMIT) -> dict:
    """Partial Mantel test (Smouse, Long & Sokal 1986): the correlation of ``a`` (e.g. the τ matrix) with design
    ``b`` once design ``c`` is held fixed, over the model pairs' upper triangles.

    Why: when two designs overlap, say the models that share a base are also the ones of similar size, a plain
    Mantel r of either design is partly the other's, and the larger r does not say which one similarity follows.
    The statistic is the partial correlation r_ab·c (Spearman: all three triangles ranked, as in
    :func:`mantel_test`). Its p-value permutes the model labels of ``a`` jointly on rows and columns while ``b`` and
    ``c`` stay fixed, the choice of vegan's ``mantel.partial`` and Legendre & Legendre (Numerical Ecology, 3rd ed.,
    §10.5.2): the dependence between the two designs, which is what the test conditions on, is kept as observed,
    and the pairs that share a model are permuted together. Permuting the residuals of a on c is the alternative
    Smouse et al. also give; it assumes the linear fit of a on c is right and can give a smaller p-value with few
    models, so the label permutation is the cautious choice. Exact (all relabellings) up to :data:`EXACT_LIMIT`,
    else Monte Carlo with the p's standard error; two-sided by default, as :func:`mantel_test`.

    Returns r (partial), p, exact, n_permutations, p_se, r_ab, r_ac, r_bc (the plain correlations: r_bc near ±1
    means ``b`` is a proxy of ``c``), n_models, n_pairs, method, alternative; r is NaN (p None) when ``c`` fixes
    ``a`` or ``b`` completely.
    """
    _check_method(method)
    ma, mb, mc = _aligned({"a": a, "b": b, "c": c}, "a partial Mantel test",
                          {"a": "similarity matrix", "b": "design matrix b", "c": "design matrix c"})
    n = len(a)
    rank = _ranked_upper if method == "spearman" else upper_triangle
    ub, uc = _standardised(rank(mb)), _standardised(rank(mc))
    sa = _symmetric_ranks(ma) if method == "spearman" else ma.astype(float)
    ua = upper_triangle(sa)
    mu, sd, m = ua.mean(), ua.std(), ua.size
    r_ab, r_ac, r_bc = float(_standardised(ua) @ ub / m), float(_standardised(ua) @ uc / m), float(ub @ uc / m)

    def statistic(perms):
        x = (_permuted_pairs(sa, perms) - mu) / sd  # a relabelling permutes a's pairs: mean and spread stay
        return _partial_r(x @ ub / m, x @ uc / m, r_bc)

    r = float(_partial_r(r_ab, r_ac, r_bc))
    base = {"r_ab": r_ab, "r_ac": r_ac, "r_bc": r_bc, "n_models": n, "n_pairs": int(m), "method": method,
            "alternative": alternative}
    if np.isnan(r):
        return {"r": r, "p": None, "exact": None, "n_permutations": 0, "p_se": None, **base}
    test = label_permutation_p(n, statistic, r, n_resamples=n_resamples, alternative=alternative, seed=seed,
                                exact_limit=exact_limit)
    return {"r": r, **test, **base}


def rsa(
    similarity: pd.DataFrame,
    designs: Mapping[str, pd.DataFrame],
    *,
    method: str = "spearman",
    n_resamples: int = 9999,
    seed: int | None = 0,
    exact_limit: int = EXACT_LIMIT,
) -> pd.DataFrame:
    """Representational-similarity analysis: one Mantel test of ``similarity`` against each design matrix.

    Designs are similarity-coded (see :func:`same_group_design`, :func:`difference_design`), so a match is r > 0;
    the test is two-sided all the same (the book's convention, :data:`ALTERNATIVE`), so that a design the models
    go against shows as significant r < 0 rather than as chance. Returns a tidy table: design, r, p, exact, p_se,
    n_models, n_pairs.
    """
    if not designs:
        raise ValueError("designs is empty; pass e.g. {'same family': same_group_design(families)}")
    rows = []
    for name, design in designs.items():
        missing = set(similarity.index) - set(design.index)
        if missing:
            raise ValueError(f"design {name!r} lacks models {sorted(missing)}")
        d = design.loc[similarity.index, similarity.index]
        res = mantel_test(similarity, d, method=method, n_resamples=n_resamples, seed=seed, exact_limit=exact_limit)
        rows.append({"design": name, **{k: res[k] for k in ("r", "p", "exact", "p_se", "n_models", "n_pairs")}})
    return pd.DataFrame(rows)


def shuffled_similarity_baseline(
    scores: pd.DataFrame,
    method: str = "kendall",
    *,
    n_shuffles: int = 20,
    p: float = 0.98,
    depth: int | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """What similarity would unrelated rankings have? Shuffle each model's scores over items and recompute.

    Returns one row per model pair and shuffle (columns model_a, model_b, shuffle, similarity). Tau and rho are ~0 with
    spread ~1/sqrt(n_items); RBO of unrelated full rankings is *not* 0 (the lists overlap more as depth grows), which
    is why a chapter should show this floor next to observed RBO values.
    """
    if n_shuffles < 1:
        raise ValueError(f"n_shuffles must be >= 1, got {n_shuffles}")
    s = check_wide_scores(scores)
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_shuffles):
        shuffled = s.apply(lambda c: pd.Series(rng.permutation(c.to_numpy()), index=c.index))
        sim = pairwise_similarity(shuffled, method, p=p, depth=depth)
        for a, b in combinations(s.columns, 2):
            rows.append({"model_a": a, "model_b": b, "shuffle": i, "similarity": float(sim.loc[a, b])})
    return pd.DataFrame(rows)
