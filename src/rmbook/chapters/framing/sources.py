"""The framing chapter on top of :mod:`.contrast`: the claim under several affect lexicons, prompt by prompt, and
which words decide it.

:func:`framing_scores` reads the word scores (published, or token sweeps mapped to the lexicons' words);
:func:`frames_by_source` and :func:`contrasts_by_source` run the framing analysis once per lexicon;
:func:`cell_agreement` counts, prompt by prompt, which word side is steeper; :func:`halves_outcome` applies the claims
page's rule to each half; :func:`lexicon_counts` compares the lexicons' verdicts; :func:`weak_half_drivers` finds the
words that pull the weaker half down and how extreme each lexicon rates them; :func:`word_means` and :func:`top_words`
give the words a reader sees in the swarm chart; in compute mode :func:`beside_paper_rms` places each computed
model's halves among the paper RMs'.
"""
from __future__ import annotations

import pandas as pd

from rmbook.analysis import beside
from rmbook.analysis.choices import HALF_WORDS, RESPONSES
from rmbook.analysis.words import MODES, published_scores, token_scores, tokens_to_words
from rmbook.analysis.claims.rules import share_outcome
from rmbook.chapters.framing.contrast import (FRAMING_HALVES, framing_cell_counts, framing_cell_slopes,
                                              framing_contrast, framing_frame, framing_halves, framing_halves_summary,
                                              framing_word_influence, influential_words)
from rmlib.data import AFFECT_SOURCES, affect_table, valence_extremeness

__all__ = ["RESPONSES", "check_sources", "framing_scores", "prompt_valences", "frames_by_source",
           "contrasts_by_source", "cell_agreement", "halves_outcome", "lexicon_counts", "weak_half_drivers",
           "word_means", "top_words", "response_unit", "halves_by_label", "beside_paper_rms"]




def check_sources(sources) -> list[str]:
    """The affect lexicons of a run (the first is the main analysis), refused when empty or unknown."""
    sources = list(sources or [])
    bad = [s for s in sources if s not in AFFECT_SOURCES]
    if bad or not sources:
        raise ValueError(f"AFFECT_SOURCES {bad or sources}: choose from {AFFECT_SOURCES}")
    return sources


def response_unit(response: str) -> str:
    """The unit of a slope for a response scale: 'SD of score' (z) or 'percentile points' (rank)."""
    if response not in RESPONSES:
        raise ValueError(f"RESPONSE must be 'z' or 'rank', not {response!r}")
    return "SD of score" if response == "z" else "percentile points"


def framing_scores(mode: str = "published", models=None, prompt_keys=None, sources=("afinn",), tokens=None, *,
                   load=None) -> pd.DataFrame:
    """Word scores with a ``label`` per model: the paper RMs' published scores (``published``), or token sweeps of
    ``models`` mapped to the words of the affect lexicons (``compute``; coverage per model in ``.attrs``)."""
    sources = check_sources(sources)
    if mode == "published":
        return published_scores(models, prompt_keys)
    if mode != "compute":
        raise ValueError(f"MODE must be one of {MODES}, not {mode!r}")
    tokens_frame = token_scores(models, prompt_keys, tokens, load=load)
    lexicon_words = set().union(*(set(affect_table(s)["word"]) for s in sources))
    return tokens_to_words(tokens_frame, lexicon_words)


def prompt_valences(scores: pd.DataFrame) -> pd.DataFrame:
    """The run's prompts (prompt_key, prompt, prompt_valence); the claim needs prompts of both valences."""
    prompts = scores.drop_duplicates("prompt_key")[["prompt_key", "prompt", "prompt_valence"]].reset_index(drop=True)
    if set(prompts["prompt_valence"]) != {"positive", "negative"}:
        raise ValueError(f"PROMPT_KEYS must include prompts of both valences; got {prompts['prompt_valence'].unique()}")
    return prompts


def frames_by_source(scores: pd.DataFrame, sources, response: str = "z") -> dict[str, pd.DataFrame]:
    """:func:`rmbook.chapters.framing.analysis.framing_frame` for every affect lexicon."""
    response_unit(response)
    return {s: framing_frame(scores, s, response) for s in check_sources(sources)}


def contrasts_by_source(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """:func:`rmbook.chapters.framing.analysis.framing_contrast` per model label, for every lexicon."""
    return {s: framing_contrast(f, groups=["label"]) for s, f in frames.items()}


def cell_agreement(ff: pd.DataFrame, halves: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Prompt by prompt, which word side has the steeper oriented slope: the cells, counts per half (by_half:
    n_congruent_steeper, n_cells) and ``halves`` with each model's count per half ('k of n' in pos_cells,
    neg_cells)."""
    cells = framing_cell_counts(framing_cell_slopes(ff.assign(model=ff["label"])))
    by_half = cells.groupby("half").agg(n_congruent_steeper=("congruent_steeper", "sum"),
                                        n_cells=("congruent_steeper", "size"))
    per_model = cells.groupby(["model", "half"])["congruent_steeper"].agg(["sum", "size"]).unstack("half")
    halves = halves.copy()
    for half, col in (("pos_prompts", "pos_cells"), ("neg_prompts", "neg_cells")):
        halves[col] = halves["label"].map(per_model[("sum", half)].astype(int).astype(str) + " of "
                                          + per_model[("size", half)].astype(str))
    return cells, by_half, halves


def halves_outcome(summary: dict) -> dict[str, str]:
    """The claims page's verdict on each half (holds / mixed / fails) from :func:`framing_halves_summary`."""
    return {h: share_outcome(summary[h]["holds"], summary[h]["n"], against=summary[h]["reversed"])
            for h in FRAMING_HALVES}


HALF_NAMES = {"pos_half": HALF_WORDS["pos_prompts"], "neg_half": HALF_WORDS["neg_prompts"]}  # the rows a reader sees


def lexicon_counts(contrasts: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How many models hold, reverse or leave unclear each half, per lexicon (rows: source × half)."""
    by_source = pd.concat([framing_halves(c, label="label").assign(source=s) for s, c in contrasts.items()])
    return (by_source.melt(id_vars=["label", "source"], value_vars=["pos_half", "neg_half"], var_name="half",
                           value_name="state")
            .replace({"half": HALF_NAMES})
            .pivot_table(index=["source", "half"], columns="state", values="label", aggfunc="count", fill_value=0))


def weak_half_drivers(frames: dict[str, pd.DataFrame], contrasts: dict[str, pd.DataFrame], *,
                      n_words: int = 8) -> dict:
    """Which words decide the framing claim, and why the lexicons disagree.

    Returns drivers (per lexicon, :func:`rmbook.chapters.framing.analysis.influential_words`), summaries (per lexicon,
    the halves' counts), weak (the half the fewest models hold with the main lexicon, the first), down (the main
    lexicon's words that pull that half down), extreme (their valence and extremeness in every lexicon),
    worst_named (the five negative words the models score highest under negative prompts) and named_extreme.
    """
    sources = list(frames)
    main = sources[0]
    influence = {s: framing_word_influence(frames[s], groups=["label"]) for s in sources}
    drivers = {s: influential_words(inf, n_words, groups=["label"]) for s, inf in influence.items()}
    summaries = {s: framing_halves_summary(framing_halves(c, label="label")) for s, c in contrasts.items()}
    weak = min(FRAMING_HALVES, key=lambda h: summaries[main][h]["holds"])
    down = drivers[main][(drivers[main]["half"] == weak) & (drivers[main]["direction"] == "pulls down")]
    ff = frames[main]
    worst_named = (ff[(ff["prompt_valence"] == "negative") & (ff["word_side"] == "negative")]
                   .groupby("word")["y"].mean().nlargest(5).index)
    return {"drivers": drivers, "summaries": summaries, "weak": weak, "down": down,
            "extreme": valence_extremeness(down["word"], sources), "worst_named": list(worst_named),
            "named_extreme": valence_extremeness(worst_named, sources)}


def word_means(ff: pd.DataFrame) -> pd.DataFrame:
    """Per word and prompt valence: its valence, mean oriented and raw standardised reward over models and prompts."""
    return ff.groupby(["word", "prompt_valence", "word_side"], as_index=False).agg(
        valence=("valence", "first"), oriented_y=("oriented_y", "mean"), y=("y", "mean"))


def top_words(words: pd.DataFrame, n: int = 5) -> dict[str, tuple[list[str], list[str]]]:
    """Per prompt valence, the ``n`` highest- and ``n`` lowest-scored words (by raw standardised reward)."""
    top = {}
    for pv in ("positive", "negative"):
        g = words[words["prompt_valence"] == pv].sort_values("y", ascending=False)
        top[pv] = (g["word"].head(n).tolist(), g["word"].tail(n).tolist()[::-1])
    return top


def halves_by_label(scores: pd.DataFrame, source: str, response: str = "z") -> pd.DataFrame:
    """Each model's two halves of the framing claim with lexicon ``source`` (:func:`framing_contrast` by ``label``),
    one row per model and half: label, measure (the half in words), estimate."""
    fc = framing_contrast(framing_frame(scores, source, response), groups=["label"])
    return pd.DataFrame([{"label": r["label"], "measure": HALF_WORDS[h], "estimate": r[h]}
                         for _, r in fc.iterrows() for h in FRAMING_HALVES],
                        columns=["label", "measure", "estimate"])


def beside_paper_rms(scores: pd.DataFrame, source: str, response: str = "z") -> dict:
    """Compute mode: each computed model's two halves placed among the paper RMs' halves on the same prompt wordings
    and the same words (:func:`rmbook.analysis.beside.beside_words`), so the paper RMs stay on the page."""
    return beside.beside_words(scores, lambda frame: halves_by_label(frame, source, response))
