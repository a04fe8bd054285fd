"""Computed models beside the ten paper RMs.

A chapter run in compute mode measures the models it was given. So that the paper RMs stay on its page, the chapter's
own measure is also taken on their released scores **of the same answers under the same prompt wordings** (the
FAccT paper's "greatest", "best" and "worst" prompts are word for word three of the 54 design prompts), and each
computed model is placed among them by one rule (:func:`placement`, which the value cards use too). Ten reference
models, six Llama-based and four Gemma-based, give a placement, not a test.

:func:`reference_scores` finds the released word scores under the run's wordings; :func:`measure_beside` restricts a
computed model and the paper RMs to what both scored and applies the chapter's measure to each; :func:`placements`
places every estimate among the paper RMs'; :func:`beside_words` does all three for a word-level chapter.
"""
from __future__ import annotations

from typing import Callable

import pandas as pd

from rmlib.data import published_word_scores
from rmlib.data.paper_rms import model_table
from rmlib.stats import require_columns

__all__ = ["SIDES", "placement", "families", "reference_scores", "measure_beside", "placements", "beside_words"]

SIDES = ("below every paper RM", "above every paper RM")


def placement(value: float, reference: pd.Series, n_nearest: int = 2, sides: tuple[str, str] = SIDES) -> dict:
    """Where ``value`` falls among the paper RMs' values (``reference``: value by nickname), by one rule: below all of
    them is ``sides[0]``, above all ``sides[1]``, else "among them"; its rank from the low end among the model and
    the ten, and the nearest paper RMs."""
    ref = reference.astype(float)
    if ref.empty:
        raise ValueError("no reference values to place the model among")
    side = sides[0] if value < ref.min() else sides[1] if value > ref.max() else "among them"
    distance = (ref - value).abs().sort_values(kind="stable")
    return {"rank": int((ref < value).sum()) + 1, "n_reference": len(ref), "side": side,
            "nearest": list(distance.index[:n_nearest]), "nearest_distance": float(distance.iloc[0])}


def families() -> dict[str, str]:
    """Each paper RM's nickname -> its base family (Gemma, Llama), for the charts' colours."""
    table = model_table()
    return dict(zip(table["nickname"], table["family"]))


def reference_scores(run: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The ten paper RMs' released word scores under the prompts of ``run`` (rows with prompt_key and prompt) that
    they were scored under word for word, keyed by the run's prompt keys and labelled by nickname; and the run's
    prompt keys that have no such wording (their rows cannot be placed). Empty unless the matched prompts include
    both valences, which the chapters' measures need."""
    require_columns(run, ["prompt_key", "prompt"], "run")
    wanted = run.drop_duplicates("prompt_key")[["prompt_key", "prompt"]]
    released = published_word_scores(None, None).drop(columns="prompt_key")
    released = released.merge(wanted, on="prompt")  # a wording two keys share is matched under each of them
    released = released.assign(label=released["nickname"], model=released["nickname"])
    if set(released["prompt_valence"]) != {"positive", "negative"}:  # a framing or exposure measure needs both
        released = released.iloc[:0]
    missing = sorted(set(wanted["prompt_key"]) - set(released["prompt_key"]))
    return released.reset_index(drop=True), missing


def _sized(measured: pd.DataFrame, n_words: int, n_prompts: int) -> pd.DataFrame:
    """A measure's rows with the words and prompts it rests on: ``n_words`` unless the measure counted the words it
    used itself (a lexicon rates only some of the shared words)."""
    return measured.assign(n_words=measured["n_words"] if "n_words" in measured else n_words, n_prompts=n_prompts)


def measure_beside(scores: pd.DataFrame, reference: pd.DataFrame,
                   measure: Callable[[pd.DataFrame], pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """For each computed model (``label`` in ``scores``, one row per prompt and word), ``measure`` (frame -> label,
    measure, estimate, and optionally n_words: the words it used) of it and of every paper RM in ``reference``, both
    restricted to the prompt keys and words they share (so each computed model is compared on its own words).
    Returns (own, reference rows with ``for_label``: the computed model they were measured beside, and n_words,
    n_prompts; and {label: why} for the models that share no word with the paper RMs, which are not placed)."""
    require_columns(scores, ["label", "prompt_key", "word", "reward"], "scores")
    require_columns(reference, ["label", "prompt_key", "word", "reward"], "reference")
    own, ref, unplaced = [], [], {}
    for label, mine in scores.groupby("label", sort=False):
        keys = set(mine["prompt_key"]) & set(reference["prompt_key"])
        words = set(mine["word"]) & set(reference["word"])
        if not words or not keys:
            unplaced[label] = "it scored none of the words the paper RMs' released scores hold"
            continue
        mine = mine[mine["prompt_key"].isin(keys) & mine["word"].isin(words)]
        theirs = reference[reference["prompt_key"].isin(keys) & reference["word"].isin(words)]
        own.append(_sized(measure(mine), len(words), len(keys)))
        ref.append(_sized(measure(theirs), len(words), len(keys)).assign(for_label=label))
    empty = pd.DataFrame(columns=["label", "measure", "estimate", "n_words", "n_prompts"])
    return (pd.concat(own, ignore_index=True) if own else empty,
            pd.concat(ref, ignore_index=True) if ref else empty.assign(for_label=[]), unplaced)


def placements(own: pd.DataFrame, reference: pd.DataFrame, sides: tuple[str, str] = SIDES) -> pd.DataFrame:
    """Each computed model's estimate of each measure (``own``: label, measure, estimate) placed among the paper RMs'
    (``reference``: label, measure, estimate, and ``for_label`` when they were measured beside one model): label,
    measure, estimate, side, rank, n_reference, nearest (joined), low and high (the paper RMs' range), n_words (the
    words or items the estimate rests on, from ``own``; 0 when it does not say)."""
    require_columns(own, ["label", "measure", "estimate"], "own")
    require_columns(reference, ["label", "measure", "estimate"], "reference")
    rows = []
    for r in own.itertuples():
        ref = reference[reference["measure"] == r.measure]
        if "for_label" in ref.columns:
            ref = ref[ref["for_label"] == r.label]
        values = ref.set_index("label")["estimate"].dropna()
        if values.empty or pd.isna(r.estimate):
            continue
        place = placement(float(r.estimate), values, sides=sides)
        rows.append({"label": r.label, "measure": r.measure, "estimate": float(r.estimate), "side": place["side"],
                     "rank": place["rank"], "n_reference": place["n_reference"],
                     "nearest": ", ".join(place["nearest"]), "low": float(values.min()),
                     "high": float(values.max()), "n_words": int(getattr(r, "n_words", 0) or 0)})
    return pd.DataFrame(rows, columns=["label", "measure", "estimate", "side", "rank", "n_reference", "nearest",
                                       "low", "high", "n_words"])


def beside_words(scores: pd.DataFrame, measure: Callable[[pd.DataFrame], pd.DataFrame]) -> dict:
    """A word-level chapter's compute-mode models beside the paper RMs: ``measure`` (frame -> label, measure,
    estimate) of each computed model in ``scores`` and of the paper RMs on the same prompt wordings and words, and
    the placements. Returns own, reference, placements, prompts (the run's keys placed) and missing (those the paper
    RMs were not scored under) and unplaced (models that share no word with them); nothing is placed when no
    wording matches."""
    reference, missing = reference_scores(scores)
    if reference.empty:
        empty = pd.DataFrame(columns=["label", "measure", "estimate", "n_words", "n_prompts"])
        return {"own": empty, "reference": empty, "placements": placements(empty, empty), "prompts": [],
                "missing": missing, "unplaced": {}}
    own, ref, unplaced = measure_beside(scores, reference, measure)
    return {"own": own, "reference": ref, "placements": placements(own, ref),
            "prompts": sorted(set(reference["prompt_key"])), "missing": missing, "unplaced": unplaced}
