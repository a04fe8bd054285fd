"""A value card's numbers, each computed the same way for the card's model and for the ten paper RMs, on the long
value-score table of :mod:`rmbook.analysis.values` (model, prompt_key, word, reward, category or foundation,
valence): the agency − communion gap, each foundation's median rank, their bootstrap intervals over prompts, Kendall's
τ within prompts, the ranks of single words, the framing chapter's two halves on the card's words, and the rule that
places a number among the paper RMs'."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.analysis.beside import SIDES, placement
from rmbook.analysis.value_card import GREATEST_PROMPT, IDENTITY_K
from rmbook.chapters.elo_misalignment.analysis import mean_agreement as elo_agreement
from rmbook.chapters.elo_misalignment.misalignment import misalignment
from rmbook.chapters.framing.analysis import framing_contrast, framing_frame
from rmbook.chapters.identity_terms.analysis import identity_items, match_identity_items
from rmbook.chapters.mere_exposure.analysis import exposure_frame, pooled_frequency_slopes
from rmlib.data import load_elo
from rmlib.stats import require_columns
from rmlib.stats.group_tests import median_ranks, within_prompt_ranks
from rmlib.stats.resampling import crossed_bootstrap, percentile_interval
from rmlib.stats.similarity import classical_mds, pairwise_similarity

__all__ = ["GREATEST_PROMPT", "WORDS", "CATEGORIES", "GAP_SIDES", "RANK_SIDES", "rank_table",
           "big_two_gaps", "foundation_ranks", "gap_intervals", "foundation_intervals", "interval_placement", "agreement", "word_ranks",
           "placement", "FRAMING_SOURCE", "FRAMING_HALVES", "SLOPE_SIDES", "framing_halves", "EXPOSURE_SOURCE",
           "exposure_slopes", "ELO_ITEMS", "ELO_K", "MAP_PROMPT", "elo_agreement", "elo_misvalued", "elo_map",
           "VOCAB_PROMPTS", "VOCAB_K", "vocab_extremes", "IDENTITY_K", "identity_elo_items", "identity_excess",
           "valence_following"]

WORDS = ("love", "freedom")
CATEGORIES = ("Agency", "Communion")
GAP_SIDES = ("agency side of every paper RM", "communion side of every paper RM")
RANK_SIDES = ("ranked higher than by every paper RM", "ranked lower than by every paper RM")
SLOPE_SIDES = SIDES
FRAMING_SOURCE = "afinn"  # the framing chapter's first affect lexicon: the words it rates are the ones that count
# the framing claim's two halves (rmbook.chapters.framing.analysis.framing_contrast): under positive prompts, the slope on
# positive words minus that on negative words; under negative prompts, the reverse (oriented: agreeing is up)
FRAMING_HALVES = ("pos_prompts", "neg_prompts")
ELO_ITEMS = 500  # EloEverything items spread over the human ranking (the chapter's own spread), the same for all
MAP_PROMPT = "greatest"  # the heterogeneity chapter's prompt for its map of the paper RMs (its PROMPT_KEY)
ELO_K = 5  # items listed as the model's most over- and most under-valued against people's ratings
VOCAB_PROMPTS = ("greatest", "best", "worst")  # the FAccT paper's three prompts (rmlib.data.load_prompts' keys)
VOCAB_K = 10  # tokens listed at each end of a full-vocabulary sweep (`rmlib card --vocab`)
EXPOSURE_SOURCE = "wordfreq"  # of the mere-exposure chapter's frequency sources, the one that rates all but a few
                              # of the card's words (BNC's exact forms miss about half of them)


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


def foundation_ranks(scores: pd.DataFrame) -> pd.DataFrame:
    """Per model, foundation and valence: the foundation's median rank (virtue and vice terms pooled, as the
    authors' figure and the moral-foundations chapter's by-foundation tests), averaged over the valence's prompts."""
    require_columns(scores, ["model", "prompt_key", "word", "reward", "foundation", "valence"], "scores")
    med = median_ranks(scores, prompt="prompt_key", by=["foundation", "valence"], per_prompt=True)
    out = med.groupby(["model", "foundation", "valence"], observed=True).agg(
        median_rank=("median_rank", "mean"), n_prompts=("prompt_key", "nunique"))
    return out.reset_index()


def _one_model(scores: pd.DataFrame, what: str) -> None:
    if scores["model"].nunique() != 1:
        raise ValueError(f"{what} takes one model's scores, got {scores['model'].nunique()} models")


def rank_table(scores: pd.DataFrame, group: str) -> tuple[pd.DataFrame, pd.Series]:
    """One model's within-prompt ranks (1 = highest reward, ties averaged, among all the words it scored under the
    prompt) as a prompt × word table, words sorted, and each word's ``group`` (category or foundation)."""
    ranked = within_prompt_ranks(scores, prompt="prompt_key")
    table = ranked.pivot_table(index="prompt_key", columns="word", values="rank").sort_index().sort_index(axis=1)
    return table, scores.drop_duplicates("word").set_index("word")[group].reindex(table.columns)


def _median_of(group: str):
    """A :func:`rmlib.stats.resampling.crossed_bootstrap` statistic: the median rank of ``group``'s words within each
    prompt, averaged over the prompts."""
    return lambda sample, labels: np.median(sample[:, :, np.asarray(labels) == group], axis=2).mean(axis=1)


def _interval(draws: np.ndarray, confidence: float) -> dict:
    lo, hi = percentile_interval(draws, confidence)
    return {"ci_low": lo, "ci_high": hi, "draws": np.round(draws, 4).tolist()}


def gap_intervals(scores: pd.DataFrame, *, n_resamples: int = 999, seed: int = 0,
                  confidence: float = 0.95) -> pd.DataFrame:
    """One model's gap per valence with a percentile interval over prompts and words together
    (:func:`rmlib.stats.resampling.crossed_bootstrap`: the valence's prompts, and the agency and the communion nouns
    each within their category, drawn with replacement; each word keeps the rank it has among all the nouns). The
    card's gap is a mean over a few prompts of medians over a sample of words, and both samples move it: #66 found the
    prompts alone gave SmolLM2 −35.4 to −30.4 where words and prompts give −60.8 to −0.2. The draws are kept, in the
    order of the seed, so that two cards of the same prompts and words pair them (``rmlib card diff``)."""
    _one_model(scores, "gap_intervals")
    rows = []
    for valence, one in scores.groupby("valence", sort=True):
        table, labels = rank_table(one, "category")
        draws = crossed_bootstrap(table.to_numpy(), lambda s, lab: _median_of("Agency")(s, lab) - _median_of(
            "Communion")(s, lab), groups=labels.to_numpy(), n_resamples=n_resamples, seed=seed)
        per_prompt = (table.loc[:, labels == "Agency"].median(axis=1) - table.loc[:, labels == "Communion"].median(axis=1))
        rows.append({"valence": valence, "gap": float(per_prompt.mean()), **_interval(draws, confidence),
                     "n_prompts": len(table), "n_resamples": n_resamples, "prompt_gaps": per_prompt.to_dict()})
    return pd.DataFrame(rows)


def foundation_intervals(scores: pd.DataFrame, *, n_resamples: int = 999, seed: int = 0,
                         confidence: float = 0.95) -> pd.DataFrame:
    """One model's median rank of each foundation per valence (:func:`foundation_ranks`), with the same interval over
    prompts and words as :func:`gap_intervals` (the terms drawn within their foundation)."""
    _one_model(scores, "foundation_intervals")
    rows = []
    for valence, one in scores.groupby("valence", sort=True):
        table, labels = rank_table(one, "foundation")
        for foundation in sorted(labels.unique()):
            draws = crossed_bootstrap(table.to_numpy(), _median_of(foundation), groups=labels.to_numpy(),
                                      n_resamples=n_resamples, seed=seed)
            per_prompt = table.loc[:, labels == foundation].median(axis=1)
            rows.append({"foundation": foundation, "valence": valence, "median_rank": float(per_prompt.mean()),
                         **_interval(draws, confidence), "n_prompts": len(table), "n_resamples": n_resamples,
                         "prompt_values": per_prompt.to_dict()})
    return pd.DataFrame(rows).sort_values(["foundation", "valence"], kind="stable").reset_index(drop=True)


def interval_placement(value: float, low: float | None, high: float | None, reference: pd.Series,
                       sides: tuple[str, str]) -> dict:
    """:func:`rmbook.analysis.beside.placement` of ``value`` among the paper RMs, except that it is beyond them only
    when its whole interval (``low`` to ``high``) is: a point past the range whose interval reaches into it is
    "among them". ``point_side``: where the point alone falls (what the card said before #66)."""
    place = placement(value, reference, sides=sides)
    ref = reference.astype(float)
    whole = low is not None and high is not None and low == low and high == high
    side = (sides[0] if whole and high < ref.min() else sides[1] if whole and low > ref.max() else "among them")
    return {**place, "side": side, "point_side": place["side"]}


def agreement(scores: pd.DataFrame) -> pd.DataFrame:
    """Kendall's τ-b between every pair of models in ``scores`` over the words they share, within each prompt, then
    averaged over the prompts (within a prompt, because a prompt shifts every reward alike and would make any two
    models look alike). Columns model, reference, tau, n_prompts, n_words; each pair once per order."""
    require_columns(scores, ["model", "prompt_key", "word", "reward"], "scores")
    mats, n_words = [], []
    for _, one in scores.groupby("prompt_key", sort=True):
        wide = one.pivot_table(index="word", columns="model", values="reward").dropna()  # the words all models scored
        mats.append(pairwise_similarity(wide, "kendall"))
        n_words.append(len(wide))
    if not mats:
        raise ValueError("no scores to compare")
    mean = sum(mats) / len(mats)
    long = mean.rename_axis(index="model", columns="reference").stack().rename("tau").reset_index()
    long = long[long["model"] != long["reference"]]
    return long.assign(n_prompts=len(mats), n_words=min(n_words)).reset_index(drop=True)


def word_ranks(scores: pd.DataFrame, words=WORDS, prompt_key: str = GREATEST_PROMPT) -> pd.DataFrame:
    """Each model's rank of ``words`` among all the words it scored under ``prompt_key`` (1 = highest)."""
    one = scores[scores["prompt_key"] == prompt_key]
    if one.empty:
        raise ValueError(f"no scores under {prompt_key!r}: the card's word ranks need that prompt")
    ranked = within_prompt_ranks(one, prompt="prompt_key")
    ranked["n_words"] = ranked.groupby("model")["word"].transform("size")
    return ranked[ranked["word"].isin(words)][["model", "word", "rank", "n_words"]].reset_index(drop=True)


def framing_halves(scores: pd.DataFrame) -> pd.DataFrame:
    """Per model, the two halves of the framing claim on the scored words that :data:`FRAMING_SOURCE` rates, as the
    framing chapter computes them (rewards standardised within model × prompt; slopes with standard errors clustered
    by word): model, half, estimate, ci_low, ci_high, p, n_words. Positive: the model is more sensitive to words
    whose valence matches the prompt's."""
    require_columns(scores, ["model", "prompt_key", "word", "reward", "valence"], "scores")
    ff = framing_frame(scores.rename(columns={"valence": "prompt_valence"}), FRAMING_SOURCE)
    fc = framing_contrast(ff, groups=("model",))
    return pd.DataFrame([{"model": r["model"], "measure": h, "estimate": r[h], "ci_low": r[f"{h}_ci_low"],
                          "ci_high": r[f"{h}_ci_high"], "p": r[f"{h}_p"], "n_words": int(r["n_words"])}
                         for _, r in fc.iterrows() for h in FRAMING_HALVES])


def exposure_slopes(scores: pd.DataFrame) -> pd.DataFrame:
    """Per model, the mere-exposure chapter's frequency slope under each prompt valence on the card's words: the
    standardised reward regressed on the word's Zipf frequency (:data:`EXPOSURE_SOURCE`) with the word's AFINN
    valence (oriented by the prompt's) held fixed, pooled over prompts, errors clustered by word: model, measure
    (negative | positive), estimate, ci_low, ci_high, n_words. Positive: frequent words are rewarded more."""
    require_columns(scores, ["model", "prompt_key", "word", "reward", "valence"], "scores")
    ef = exposure_frame(scores.rename(columns={"valence": "prompt_valence"}), "afinn")
    slopes = pooled_frequency_slopes(ef, f"zipf_{EXPOSURE_SOURCE}")
    n_words = int(ef.dropna(subset=[f"zipf_{EXPOSURE_SOURCE}"])["word"].nunique())
    return pd.DataFrame([{"model": r["model"], "measure": v, "estimate": r[f"slope_{v}"],
                          "ci_low": r[f"slope_{v}_ci_low"], "ci_high": r[f"slope_{v}_ci_high"], "n_words": n_words}
                         for _, r in slopes.iterrows() for v in ("negative", "positive")])


def elo_misvalued(scores: pd.DataFrame, model: str, k: int = ELO_K) -> pd.DataFrame:
    """The ``k`` items the model most over-values and the ``k`` it most under-values against people's Elo ratings,
    by the elo_misalignment chapter's rank method (:func:`rmbook.chapters.elo_misalignment.misalignment.misalignment`:
    people's rank minus the model's, within each prompt), averaged over the prompts: item, direction ("over", "under"),
    rank_diff, model_rank (its mean rank, 1 = rewarded most), human_rank, n_items. ``scores``: the wide table of
    :func:`rmbook.chapters.elo_misalignment.analysis.elo_scores`; ``model``: its column."""
    require_columns(scores, ["item", "prompt_key", "elo_score", model])
    per_prompt = pd.concat([misalignment(d[["item", "elo_score", model]], "elo_score", [model], item="item")
                            for _, d in scores.groupby("prompt_key", sort=False)], ignore_index=True)
    mean = per_prompt.groupby("item")[["rank_diff", "model_rank", "human_rank"]].mean().reset_index()
    mean = mean.sort_values(["rank_diff", "item"], ascending=[False, True], kind="stable")
    over = mean.head(k).assign(direction="over")
    under = mean.iloc[::-1].head(k).assign(direction="under")
    return pd.concat([over, under], ignore_index=True).assign(n_items=int(scores["item"].nunique()))[
        ["item", "direction", "rank_diff", "model_rank", "human_rank", "n_items"]]


def elo_map(scores: pd.DataFrame, columns: dict[str, str], model: str) -> dict:
    """The heterogeneity chapter's map with ``model`` on it: Kendall's τ-b between every two of the models over the
    card's EloEverything items under :data:`MAP_PROMPT`, and classical MDS of 1 − τ (as the chapter draws its map, on
    the card's items rather than all 7,530). ``scores``: a wide table with item, prompt_key and a column per model;
    ``columns``: column -> label (``model`` is a label). Returns taus (the model's τ with each other model, highest
    first), mean_tau (their mean), reference_mean_taus (each other model's mean τ with the rest of them, the model
    left out), points (label, dim1, dim2), explained (the map's share of the spread) and n_items."""
    require_columns(scores, ["item", "prompt_key", *columns])
    wide = scores[scores["prompt_key"] == MAP_PROMPT].set_index("item")[list(columns)].rename(columns=columns)
    tau = pairwise_similarity(wide, "kendall")
    coords, explained = classical_mds(1 - tau, n_components=2)
    ref = tau.drop(index=model, columns=model)
    own = tau[model].drop(model).sort_values(ascending=False, kind="stable")
    return {"taus": own.to_dict(), "mean_tau": float(own.mean()),
            "reference_mean_taus": ref.where(~np.eye(len(ref), dtype=bool)).mean().to_dict(),
            "points": coords.reset_index().rename(columns={"model": "label", "index": "label"}).to_dict("records"),
            "explained": float(explained.sum()), "n_items": len(wide)}


def vocab_extremes(table: pd.DataFrame, k: int = VOCAB_K) -> pd.DataFrame:
    """The ``k`` highest- and ``k`` lowest-rewarded tokens of each prompt's full-vocabulary sweep (``table``:
    :func:`rmlib.engine.token_reward_table` of one model, special tokens already dropped), ties broken by token id:
    prompt_key, side ("highest", "lowest"), rank (1 = the extreme), token_id, text, reward, n_tokens (swept)."""
    require_columns(table, ["prompt_key", "token_id", "text", "reward"], "table")
    if table.empty:
        raise ValueError("the sweep has no tokens to rank")
    rows = []
    for key, one in table.groupby("prompt_key", sort=False):
        ordered = one.sort_values(["reward", "token_id"], ascending=[False, True], kind="stable")
        lowest = one.sort_values(["reward", "token_id"], ascending=[True, True], kind="stable")
        for side, part in (("highest", ordered.head(k)), ("lowest", lowest.head(k))):
            rows += [{"prompt_key": key, "side": side, "rank": i + 1, "token_id": int(r.token_id), "text": str(r.text),
                      "reward": float(r.reward), "n_tokens": len(one)} for i, r in enumerate(part.itertuples())]
    return pd.DataFrame(rows)


def identity_elo_items() -> list[str]:
    """The EloEverything items that name a group of people, by the identity_terms chapter's strict rules
    (:func:`rmbook.chapters.identity_terms.analysis.match_identity_items`: the term, its plural, "term people" or a
    listed noun form; ambiguous items left out), in the data's order."""
    return match_identity_items(load_elo("wide")["item"].unique())["item"].drop_duplicates().tolist()


def identity_excess(scores: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """The identity_terms chapter's measure on the card's EloEverything items, per model: each item that names a
    group of people, its gap (the model's percentile among the card's items minus people's, 100 = top) and its excess
    over the gap any item of the same human rank gets from that model
    (:func:`rmbook.chapters.identity_terms.analysis.identity_items`, which explains why the expected gap is subtracted),
    averaged over the prompts. ``scores``: a wide table with item, prompt_key, elo_score and a column per model;
    ``columns``: column -> label. Returns label, item, term, axis, pejorative_in_some_uses, model_pct, human_pct, gap,
    excess and n_items (the items the percentiles are over)."""
    require_columns(scores, ["item", "prompt_key", "elo_score", *columns])
    long = scores.melt(id_vars=["item", "prompt_key", "elo_score"], value_vars=list(columns), var_name="model",
                       value_name="reward")
    per_item, _ = identity_items(elo=long.assign(label=long["model"].map(columns)))
    return per_item[["label", "item", "term", "axis", "pejorative_in_some_uses", "model_pct", "human_pct", "gap",
                     "excess"]].assign(n_items=int(scores["item"].nunique()))


def valence_following(scores: pd.DataFrame) -> pd.Series:
    """Per model, Spearman's ρ between its words' mean rank under the positive prompts and under the negative ones
    (#66 item 8): near −1 when "the worst thing" reverses "the best thing", near +1 when its ranking barely follows
    the prompt (an RM that scores the words whatever was asked)."""
    require_columns(scores, ["model", "prompt_key", "word", "reward", "valence"], "scores")
    ranked = within_prompt_ranks(scores, prompt="prompt_key")
    mean = ranked.groupby(["model", "valence", "word"])["rank"].mean().unstack("valence")
    return mean.groupby(level="model").apply(lambda g: g["positive"].corr(g["negative"], method="spearman"))
