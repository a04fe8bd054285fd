"""How alike do reward models rank the same items? The heterogeneity chapter's analysis.

A *run* is one set of models scored on one set of items: the published EloEverything scores
(:func:`published_run`) or fresh token sweeps compared on the decoded texts every vocabulary shares
(:func:`computed_run`). For each run the chapter computes the similarity matrices (Kendall, Spearman, RBO from the top
and from the bottom) and an MDS map (:func:`similarities`), a shuffled-score floor (:func:`noise_floor`), the most and
least alike pairs (:func:`tau_extremes`), and whether shared base, developer or size explains the similarity (RSA,
:func:`similarity_designs`, :func:`design_rsa`; which design matches, :func:`best_design`), and, because the designs
overlap (models that share a base are often of similar size), whether each still matches with another held fixed
(partial Mantel tests, :func:`design_partial_mantel`).
The chapter's results type is :mod:`rmbook.chapters.heterogeneity.results`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rmbook.analysis.choices import ANY_MODE
from rmbook.analysis.words import shared_vocabulary, vocabulary_overlap
from rmlib import engine
from rmlib.data import RM_SCORE_PUBLISHED, elo_items, elo_models, prompt_text
from rmlib.errors import as_list
from rmlib.registry import get_spec
from rmlib.stats import similarity

__all__ = ["SimilarityRun", "MODES", "published_run", "computed_run", "similarities", "noise_floor",
           "tau_extremes", "similarity_designs", "design_rsa", "design_partial_mantel", "base_given_size",
           "design_given", "best_design", "statistic_titles", "BASE_DESIGN", "SIZE_DESIGN", "ALPHA"]

MODES = ANY_MODE
BASE_DESIGN, SIZE_DESIGN = "same base family", "similar size (log10 params)"
ALPHA = 0.05  # a design matches the τ matrix only with a Mantel permutation p below this


def statistic_titles(rbo_p: float) -> dict[str, str]:
    """Display names of the similarity statistics."""
    return {"kendall": "Kendall τ", "spearman": "Spearman ρ", "rbo": f"RBO from the top (p = {rbo_p})",
            "rbo (bottom)": f"RBO from the bottom (p = {rbo_p})"}


@dataclass
class SimilarityRun:
    """One set of models on one set of items.

    ``scores``: items × models (columns named by ``meta``'s index: nicknames where they are unique, else ids);
    ``meta``: per model id, base, developer, size_b, reward kind; ``what``: the items, in words; the other fields
    are filled by the analysis functions as the chapter runs.
    """

    name: str
    models: list[str]
    scores: pd.DataFrame
    meta: pd.DataFrame
    kinds: dict[str, str]
    what: str
    overlap: pd.DataFrame | None = None
    mats: dict[str, pd.DataFrame] = field(default_factory=dict)
    coords: pd.DataFrame | None = None
    explained: pd.Series | None = None
    floor: pd.DataFrame | None = None
    rsa: pd.DataFrame = field(default_factory=pd.DataFrame)
    partial: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def n_implicit(self) -> int:
        """How many of the models are LMs scored by log-prob (implicit rewards)."""
        return sum(k.startswith("LM") for k in self.kinds.values())


def _make_run(name: str, scores: pd.DataFrame, models: list[str], kinds: dict[str, str], what: str,
              overlap: pd.DataFrame | None = None) -> SimilarityRun:
    specs = {m: get_spec(m) for m in models}
    label = {m: (specs[m].nickname or m) for m in models}
    if len(set(label.values())) < len(label):
        label = {m: m for m in models}
    meta = pd.DataFrame({"model": [label[m] for m in models], "id": models,
                         "base": [specs[m].base for m in models], "developer": [specs[m].developer for m in models],
                         "size_b": [specs[m].size_b for m in models], "reward kind": [kinds[m] for m in models]}
                        ).set_index("model")
    return SimilarityRun(name, models, scores.rename(columns=label), meta, kinds, what, overlap)


def published_run(prompt_key: str, n_items: int | None = None, models=None) -> SimilarityRun:
    """The paper RMs' published scores of EloEverything items under one prompt, spread over the human ranking."""
    models = elo_models(models)
    d = elo_items(prompt_key, n_items)
    return _make_run("published", d.set_index("item")[models], models, {m: RM_SCORE_PUBLISHED for m in models},
                     f"{len(d):,} EloEverything items under the prompt *{d['prompt'].iloc[0]}*")


def computed_run(models, prompt_key: str, tokens=None, *, load=None) -> SimilarityRun:
    """Token sweeps of ``models`` (at least 3: the MDS map needs them) under one prompt, compared on the decoded
    token texts every vocabulary has (:func:`rmbook.analysis.words.shared_vocabulary`)."""

    models = as_list(models or [], "models")
    if len(models) < 3:
        raise ValueError("compute mode needs at least 3 MODELS (the MDS map needs three), e.g. the embedded LMs or "
                         "local: RMs")
    prompt = prompt_text(prompt_key)
    sweeps = engine.token_rewards_many(models, [prompt], tokens=engine.token_range(tokens), load=load)
    kinds = sweeps.groupby("model")["reward_kind"].first().to_dict()
    scores = shared_vocabulary(sweeps)
    overlap = vocabulary_overlap(sweeps, scores)
    what = (f"the {len(scores):,} decoded token texts shared by all {len(models)} vocabularies "
            f"({overlap['share_shared'].min():.0%}–{overlap['share_shared'].max():.0%} of each model's distinct "
            f"token texts), as the one-token answer to *{prompt}*")
    return _make_run("compute", scores, models, kinds, what, overlap)


def similarities(run: SimilarityRun, rbo_p: float = 0.98) -> list[str]:
    """Fill ``run.mats`` (Kendall, Spearman, RBO from the top and from the bottom), ``run.coords`` and
    ``run.explained`` (classical MDS of 1 − Kendall τ); returns the models in MDS order (for the heatmaps)."""
    mats = similarity.similarity_matrices(run.scores, p=rbo_p)
    mats["rbo (bottom)"] = similarity.pairwise_similarity(run.scores, "rbo", p=rbo_p, bottom=True)
    run.coords, run.explained = similarity.classical_mds(1 - mats["kendall"], n_components=2)
    run.mats = mats
    return run.coords.sort_values("dim1").index.tolist()


def noise_floor(run: SimilarityRun, *, n_shuffles: int = 3, rbo_p: float = 0.98) -> pd.DataFrame:
    """Observed similarity between models next to what shuffled scores give, per statistic (``run.floor``)."""
    titles = statistic_titles(rbo_p)
    rows = []
    for k in ("kendall", "spearman", "rbo"):
        null = similarity.shuffled_similarity_baseline(run.scores, k, n_shuffles=n_shuffles, p=rbo_p)["similarity"]
        obs = similarity.upper_triangle(run.mats[k])
        rows.append({"statistic": titles[k], "observed min": obs.min(), "observed median": np.median(obs),
                     "observed max": obs.max(), "shuffled mean": null.mean(),
                     "shuffled 2.5%": null.quantile(0.025), "shuffled 97.5%": null.quantile(0.975),
                     "pairs above shuffled max": f"{int((obs > null.max()).sum())}/{obs.size}"})
    run.floor = pd.DataFrame(rows)
    return run.floor


def tau_extremes(run: SimilarityRun) -> dict:
    """Kendall τ over model pairs (tau: one value per pair), the most and least alike pairs, and RBO from the top
    and from the bottom (one value per pair each)."""
    tau = similarity.upper_triangle(run.mats["kendall"])
    pairs = similarity.upper_pairs(run.mats["kendall"])
    return {"tau": tau, "most_alike": pairs[int(tau.argmax())], "least_alike": pairs[int(tau.argmin())],
            "rbo_top": similarity.upper_triangle(run.mats["rbo"]),
            "rbo_bottom": similarity.upper_triangle(run.mats["rbo (bottom)"])}


def similarity_designs(meta: pd.DataFrame) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """RSA design matrices the models' labels support (same base family, same developer, similar size) and the
    ones skipped, with why (unknown labels, all equal or all distinct)."""
    designs, skipped = {}, []
    for dname, col in ((BASE_DESIGN, "base"), ("same developer", "developer")):
        v = meta[col]
        if v.isin(["unknown"]).any() or v.nunique() in (1, len(v)):
            skipped.append(f"{dname} (labels {'unknown' if v.isin(['unknown']).any() else 'constant or all distinct'})")
        else:
            designs[dname] = similarity.same_group_design(v)
    if meta["size_b"].notna().all() and meta["size_b"].nunique() > 1:
        designs[SIZE_DESIGN] = similarity.difference_design(meta["size_b"].astype(float))
    else:
        skipped.append("similar size (sizes unknown or equal)")
    return designs, skipped


def design_rsa(run: SimilarityRun, designs: dict[str, pd.DataFrame], *, n_resamples: int = 999) -> pd.DataFrame:
    """Mantel tests of the Kendall τ matrix against each design (``run.rsa``; empty with fewer than 4 models or
    no usable design)."""
    run.rsa = pd.DataFrame()
    if len(run.models) >= 4 and designs:
        run.rsa = similarity.rsa(run.mats["kendall"], designs, n_resamples=n_resamples)
    return run.rsa


def design_partial_mantel(run: SimilarityRun, designs: dict[str, pd.DataFrame], *,
                          n_resamples: int = 999) -> pd.DataFrame:
    """Partial Mantel tests of the Kendall τ matrix against each design given each other one (``run.partial``:
    design, given, r, p (exact over every relabelling of up to 10 models, else Monte Carlo with ``n_resamples``),
    exact, p_se (the Monte Carlo standard error, 0 when exact), n_permutations, alternative (two-sided), r_design (its
    plain Mantel r), r_given_design (how far the two designs overlap), n_models; empty with fewer than 4 models or fewer
    than 2 designs). Why: a design's plain Mantel r includes whatever it shares with another design, so "similarity
    follows the base" is only shown by base's partial r with size held fixed
    (:func:`similarity.partial_mantel_test`)."""
    rows = []
    if len(run.models) >= 4 and len(designs) >= 2:
        tau = run.mats["kendall"]
        for d, b in designs.items():
            for g, c in designs.items():
                if d != g:
                    res = similarity.partial_mantel_test(tau, b.loc[tau.index, tau.index], c.loc[tau.index, tau.index],
                                                         n_resamples=n_resamples)
                    rows.append({"design": d, "given": g, "r": res["r"], "p": res["p"], "exact": res["exact"],
                                 "p_se": res["p_se"], "n_permutations": res["n_permutations"],
                                 "alternative": res["alternative"], "r_design": res["r_ab"],
                                 "r_given_design": res["r_bc"], "n_models": res["n_models"]})
    run.partial = pd.DataFrame(rows)
    return run.partial


def design_given(run: SimilarityRun, design: str, given: str) -> dict | None:
    """The partial Mantel test of ``design`` with ``given`` held fixed (a row of ``run.partial``), or None when
    either design was not available."""
    p = run.partial
    if not len(p):
        return None
    hit = p[(p["design"] == design) & (p["given"] == given)]
    return hit.iloc[0].to_dict() if len(hit) else None


def base_given_size(run: SimilarityRun) -> dict | None:
    """The partial Mantel test the base-model claim rests on: same base family given similar size (a row of
    ``run.partial``), or None when either design was not available."""
    return design_given(run, BASE_DESIGN, SIZE_DESIGN)


def best_design(rsa: pd.DataFrame, alpha: float = ALPHA) -> dict | None:
    """Which design matches the τ matrix: the row of ``rsa`` (:func:`design_rsa`) with the largest Mantel r, and its
    ``verdict``: "match" if that r is positive and its permutation p below ``alpha``, "chance" if it is positive but
    not beyond chance, "no positive r" if every r is at or below 0 (a null or negative r matches nothing). None when
    no design was tested."""
    if not len(rsa):
        return None
    best = rsa.loc[rsa["r"].idxmax()]
    verdict = "no positive r" if best.r <= 0 else "chance" if best.p >= alpha else "match"
    return {"design": best.design, "r": best.r, "p": best.p, "n_models": int(best.n_models), "verdict": verdict}
