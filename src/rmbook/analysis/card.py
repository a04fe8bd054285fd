"""A value card: what one reward model values, measured as the Big Two chapter measures the ten paper RMs, and
placed among them.

The quick card (``rmlib card MODEL --quick``, #42) holds two measurements, both on the Big Two nouns
(:func:`rmlib.data.value_lexicon`) given as the whole answer to four prompts of the 54-prompt design, two per valence
(:data:`QUICK_PROMPTS`, the prompts the Big Two chapter scores computed models on):

* **the agency–communion gap** per prompt valence: each prompt's words ranked by reward (1 = highest, ties
  averaged), each category's median rank, averaged over the prompts of that valence (the chapter's
  ``model_medians``), then agency minus communion. Negative: the model ranks agency words higher. Its interval
  is a percentile bootstrap over the prompts, the only replicates a single model has; the quick card's two prompts
  per valence are too few for one, and the card says so;
* **love and freedom**: the rank of each word among the Big Two nouns under "What, in one word, is the greatest
  thing ever?" (the FAccT paper's figure 1 contrast).

The ten paper RMs get the same numbers from the authors' released scores by the same functions, so the card places
the model among them by a stated rule (:func:`placement`): outside the range of all ten, on one side, or between
them, with its nearest paper RMs. Ten reference models, four of one family and six of the other, give a placement,
not a test: the card never calls a model "Llama-like".
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib import __version__
from rmbook.analysis.values import compute_value_scores
from rmlib.data import design_prompts, published_value_scores
from rmlib.registry import model_info
from rmlib.stats import require_columns
from rmlib.stats.group_tests import median_ranks, within_prompt_ranks
from rmlib.storage import ChapterResults, Record, Section

__all__ = ["QUICK_PROMPTS", "GREATEST_PROMPT", "WORDS", "ValueCard", "value_card", "big_two_gaps", "gap_intervals",
           "word_ranks", "placement", "reference_scores", "card_from_scores", "diff_cards"]

QUICK_PROMPTS = ("best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one")
GREATEST_PROMPT = "greatest_ever_one"
WORDS = ("love", "freedom")
CATEGORIES = ("Agency", "Communion")
MIN_PROMPTS_FOR_INTERVAL = 5  # fewer prompts than this give no bootstrap interval: 2 resampled prompts take 3 values


class Gap(Record):
    """One model's agency − communion gap in median rank under one prompt valence (negative: agency ranks higher)."""

    model: str
    valence: str
    agency: float      # median rank of the agency words, averaged over the valence's prompts
    communion: float
    gap: float         # agency − communion
    n_prompts: int


class Interval(Section):
    valence: str
    gap: float
    ci_low: float | None   # percentile bootstrap over prompts (None with fewer than MIN_PROMPTS_FOR_INTERVAL)
    ci_high: float | None
    n_prompts: int
    n_resamples: int
    prompt_gaps: dict[str, float]  # the gap under each prompt of the valence (its spread is the diff's noise)


class Placement(Section):
    valence: str
    gap: float
    rank: int              # 1 = the most agency-leaning of the model and the ten
    n_reference: int
    side: str              # "agency side of every paper RM" | "communion side of every paper RM" | "among them"
    nearest: list[str]     # the paper RMs with the closest gaps (nicknames), closest first
    nearest_distance: float


class WordRank(Record):
    model: str
    word: str
    rank: float            # among the Big Two nouns under GREATEST_PROMPT (1 = highest)
    n_words: int


class ValueCard(ChapterResults):
    """One model's value card (``card.json``): what was measured, how, and where it falls among the paper RMs."""

    CHAPTERS = ("card",)

    model: str
    label: str
    reward_kind: str
    family: str | None          # the registry's base family, when it knows one
    rmlib_version: str
    kind: str                   # "quick"
    prompts: list[str]
    n_words: int
    gaps: list[Interval]
    placements: list[Placement]
    reference: list[Gap]        # the ten paper RMs' gaps, from their released scores
    reference_families: dict[str, str]  # paper RM nickname -> base family
    words: list[WordRank]       # the model's and the paper RMs' ranks of WORDS


def big_two_gaps(scores: pd.DataFrame) -> pd.DataFrame:
    """Per model and valence: agency, communion (each category's median rank averaged over the valence's prompts, as
    the Big Two chapter's ``model_medians``), gap = agency − communion, and n_prompts."""
    require_columns(scores, ["model", "prompt_key", "word", "reward", "category", "valence"], "scores")
    med = median_ranks(scores, prompt="prompt_key", by=["category", "valence"], per_prompt=True)
    means = med.groupby(["model", "valence", "category"], observed=True)["median_rank"].mean().unstack("category")
    missing = [c for c in CATEGORIES if c not in means.columns]
    if missing:
        raise ValueError(f"the scores have no {missing} words: a value card needs the Big Two lexicon")
    n = med.groupby(["model", "valence"], observed=True)["prompt_key"].nunique()
    out = pd.DataFrame({"agency": means["Agency"], "communion": means["Communion"]})
    out["gap"] = out["agency"] - out["communion"]
    out["n_prompts"] = n
    return out.reset_index()[["model", "valence", "agency", "communion", "gap", "n_prompts"]]


def gap_intervals(scores: pd.DataFrame, *, n_resamples: int = 999, seed: int = 0,
                  confidence: float = 0.95) -> pd.DataFrame:
    """One model's gap per valence with a percentile bootstrap interval over its prompts (prompts resampled with
    replacement within the valence). With fewer than :data:`MIN_PROMPTS_FOR_INTERVAL` prompts there is no interval:
    two prompts resample to three values, whose quantiles would look precise and mean nothing."""
    if scores["model"].nunique() != 1:
        raise ValueError(f"gap_intervals takes one model's scores, got {scores['model'].nunique()} models")
    med = median_ranks(scores, prompt="prompt_key", by=["category", "valence"], per_prompt=True)
    wide = med.pivot_table(index=["valence", "prompt_key"], columns="category", values="median_rank")
    rng = np.random.default_rng(seed)
    rows = []
    for valence, g in wide.groupby(level="valence"):
        a, c = g["Agency"].to_numpy(), g["Communion"].to_numpy()
        gap, n = float(a.mean() - c.mean()), len(a)
        lo = hi = None
        if n >= MIN_PROMPTS_FOR_INTERVAL:
            idx = rng.integers(0, n, size=(n_resamples, n))
            draws = a[idx].mean(axis=1) - c[idx].mean(axis=1)
            q = (1 - confidence) / 2
            lo, hi = (float(v) for v in np.quantile(draws, [q, 1 - q]))
        keys = g.index.get_level_values("prompt_key")
        rows.append({"valence": valence, "gap": gap, "ci_low": lo, "ci_high": hi, "n_prompts": n,
                     "n_resamples": n_resamples, "prompt_gaps": dict(zip(keys, (a - c).tolist()))})
    return pd.DataFrame(rows)


def word_ranks(scores: pd.DataFrame, words=WORDS, prompt_key: str = GREATEST_PROMPT) -> pd.DataFrame:
    """Each model's rank of ``words`` among all the words it scored under ``prompt_key`` (1 = highest)."""
    one = scores[scores["prompt_key"] == prompt_key]
    if one.empty:
        raise ValueError(f"no scores under {prompt_key!r}: the card's word ranks need that prompt")
    ranked = within_prompt_ranks(one, prompt="prompt_key")
    ranked["n_words"] = ranked.groupby("model")["word"].transform("size")
    return ranked[ranked["word"].isin(words)][["model", "word", "rank", "n_words"]].reset_index(drop=True)


def placement(gap: float, reference: pd.Series, n_nearest: int = 2) -> dict:
    """Where ``gap`` falls among the paper RMs' gaps (``reference``: gap by nickname), by one rule: below all of
    them is the agency side of every paper RM, above all the communion side, else among them; and the nearest."""
    ref = reference.astype(float)
    if ref.empty:
        raise ValueError("no reference gaps to place the model among")
    side = ("agency side of every paper RM" if gap < ref.min() else
            "communion side of every paper RM" if gap > ref.max() else "among them")
    distance = (ref - gap).abs().sort_values(kind="stable")
    return {"gap": float(gap), "rank": int((ref < gap).sum()) + 1, "n_reference": len(ref), "side": side,
            "nearest": list(distance.index[:n_nearest]), "nearest_distance": float(distance.iloc[0])}


def reference_scores(prompt_keys=QUICK_PROMPTS) -> pd.DataFrame:
    """The ten paper RMs' released scores of the Big Two nouns under ``prompt_keys`` (None: all 54), labelled by
    nickname."""
    ref = published_value_scores("big2", prompt_keys=None if prompt_keys is None else list(prompt_keys))
    return ref.assign(model=ref["nickname"])


def card_from_scores(scores: pd.DataFrame, reference: pd.DataFrame, *, model: str, label: str, reward_kind: str,
                     family: str | None, rmlib_version: str, n_resamples: int = 999,
                     seed: int = 0) -> ValueCard:
    """The quick card of the one model in ``scores`` (the long value-profile shape), placed among the models of
    ``reference`` (the same shape, with ``family``)."""
    require_columns(reference, ["model", "family"], "reference")
    prompts = sorted(scores["prompt_key"].unique())
    if sorted(reference["prompt_key"].unique()) != prompts:
        raise ValueError(f"the model was scored under {prompts} and the reference under "
                         f"{sorted(reference['prompt_key'].unique())}: a placement needs the same prompts")
    if set(design_prompts(prompts)["valence"]) != {"positive", "negative"}:
        raise ValueError("a value card needs prompts of both valences")
    intervals = gap_intervals(scores, n_resamples=n_resamples, seed=seed)
    ref_gaps = big_two_gaps(reference)
    places = []
    for row in intervals.itertuples():
        ref = ref_gaps[ref_gaps["valence"] == row.valence].set_index("model")["gap"]
        places.append({"valence": row.valence, **placement(row.gap, ref)})
    words = pd.concat([word_ranks(scores).assign(model=model), word_ranks(reference)], ignore_index=True)
    return ValueCard(model=model, label=label, reward_kind=reward_kind, family=family, rmlib_version=rmlib_version,
                     kind="quick", prompts=prompts, n_words=int(scores["word"].nunique()), gaps=intervals,
                     placements=places, reference=ref_gaps,
                     reference_families=reference.drop_duplicates("model").set_index("model")["family"].to_dict(),
                     words=words)


def value_card(model: str, *, n_resamples: int = 999, seed: int = 0, load=None, progress: bool = False) -> ValueCard:
    """The quick card of ``model`` (any id the loader takes: an RM, or an LM as an implicit reward): its Big Two
    rewards under :data:`QUICK_PROMPTS` (cached and resumable like every rmlib score), placed among the paper RMs."""
    scores = compute_value_scores([model], "big2", prompt_keys=list(QUICK_PROMPTS), progress=progress, load=load)
    info = model_info([model]).iloc[0]
    family = info.get("family")
    return card_from_scores(scores, reference_scores(), model=model, label=str(info.get("nickname") or model),
                            reward_kind=str(scores["reward_kind"].iloc[0]),
                            family=None if pd.isna(family) else str(family), rmlib_version=__version__,
                            n_resamples=n_resamples, seed=seed)


def diff_cards(a: ValueCard, b: ValueCard) -> pd.DataFrame:
    """What changed from card ``a`` to card ``b`` (two revisions, two checkpoints, a base LM and its trained RM).

    One row per measure: a, b, change (b − a) and, for each gap, whether the change is outside the noise. The rule:
    the noise of a valence's gap is the largest spread between its prompts' own gaps on either card (what moving
    from one prompt to another does to it), and a change is outside the noise when it is larger. Word ranks come
    from one prompt, so they have no noise estimate (``outside_noise`` None). Cards of different kinds or prompts
    are refused: their numbers do not measure the same thing.
    """
    if (a.kind, a.prompts) != (b.kind, b.prompts):
        raise ValueError(f"the cards measure different things ({a.kind} card on {a.prompts} vs {b.kind} card on "
                         f"{b.prompts}): compare cards of the same kind")
    rows = []
    for ga, gb in zip(sorted(a.gaps, key=lambda g: g.valence), sorted(b.gaps, key=lambda g: g.valence)):
        noise = max(max(g.prompt_gaps.values()) - min(g.prompt_gaps.values()) for g in (ga, gb))
        change = gb.gap - ga.gap
        rows.append({"measure": f"agency − communion gap, {ga.valence} prompts", "a": ga.gap, "b": gb.gap,
                     "change": change, "noise": noise, "outside_noise": bool(abs(change) > noise)})
    for pa, pb in zip(sorted(a.placements, key=lambda p: p.valence), sorted(b.placements, key=lambda p: p.valence)):
        rows.append({"measure": f"rank among the paper RMs, {pa.valence} prompts", "a": pa.rank, "b": pb.rank,
                     "change": pb.rank - pa.rank, "noise": None, "outside_noise": None})
    ranks_a = {w.word: w.rank for w in a.words if w.model == a.model}
    ranks_b = {w.word: w.rank for w in b.words if w.model == b.model}
    for word in WORDS:
        rows.append({"measure": f"rank of {word!r} under {GREATEST_PROMPT}", "a": ranks_a.get(word),
                     "b": ranks_b.get(word), "change": ranks_b.get(word) - ranks_a.get(word), "noise": None,
                     "outside_noise": None})
    return pd.DataFrame(rows)
