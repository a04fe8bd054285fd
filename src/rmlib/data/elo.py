"""EloEverything: 7,530 items with human Elo ratings and the 10 paper RMs' scores, under 3 prompts."""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from rmlib.data.files import path
from rmlib.data.paper_rms import PAPER_RMS
from rmlib.data.prompts import ELO_PROMPTS
from rmlib.errors import as_list

@functools.lru_cache(maxsize=None)
def _wide() -> pd.DataFrame:
    frames = []
    for key, prompt in ELO_PROMPTS.items():
        rel = prompt.file
        # keep_default_na=False: items such as "None" or "NA" are words, not missing values.
        df = pd.read_csv(path(rel), keep_default_na=False, na_values={m: [""] for m in PAPER_RMS})
        missing = set(PAPER_RMS) - set(df.columns)
        if missing:
            raise ValueError(f"{rel}: expected a score column for every paper RM; missing {sorted(missing)}")
        df = df.rename(columns={"name": "item"})
        df.insert(1, "prompt_key", key)
        df.insert(2, "prompt", prompt.text)
        frames.append(df[["item", "prompt_key", "prompt", "elo_score", "elo_rank", "elo_matches", *PAPER_RMS]])
    return pd.concat(frames, ignore_index=True)


def load_elo(form: str = "long") -> pd.DataFrame:
    """EloEverything ratings and RM scores.

    form='long' (7,530 items x 3 prompts x 10 RMs = 225,900 rows): item, prompt_key, prompt, model (HF id),
    reward (the RM's score for the item as the one-word answer), elo_score, elo_rank (1 = most preferred by
    humans), elo_matches (number of human comparisons).
    form='wide' (22,590 rows): item, prompt_key, prompt, elo_score, elo_rank, elo_matches, then one score
    column per RM named by its HF id.
    """
    wide = _wide()
    if form == "wide":
        return wide.copy()
    if form != "long":
        raise ValueError(f"form must be 'long' or 'wide', not {form!r}")
    long = wide.melt(id_vars=["item", "prompt_key", "prompt", "elo_score", "elo_rank", "elo_matches"],
                     value_vars=list(PAPER_RMS), var_name="model", value_name="reward")
    return long[["item", "prompt_key", "prompt", "model", "reward", "elo_score", "elo_rank", "elo_matches"]]


def even_spread(frame: pd.DataFrame, n: int | None) -> pd.DataFrame:
    """``n`` rows of ``frame`` at evenly spaced positions, first and last included, in order (None: all rows).

    The chapters sample EloEverything items this way along the human ranking, so that a quick run still covers
    the best, the worst and everything between."""
    if n is None:
        return frame
    if n < 1:
        raise ValueError(f"n must be >= 1 (or None for all rows), got {n}")
    positions = np.unique(np.linspace(0, len(frame) - 1, min(n, len(frame))).round().astype(int))
    return frame.iloc[positions]


def elo_items(prompt_key: str, n_items: int | None = None, *, min_items: int = 1) -> pd.DataFrame:
    """The wide EloEverything rows of one prompt, sorted by human rank (1 = most preferred) and evenly spread over
    it (:func:`even_spread`; None: all 7,530 items). ``min_items``: the fewest items the caller's statistics need."""
    if prompt_key not in ELO_PROMPTS:
        raise ValueError(f"prompt key {prompt_key!r} is not an EloEverything prompt; choose one of {list(ELO_PROMPTS)}")
    if n_items is not None and n_items < min_items:
        raise ValueError(f"n_items={n_items}: use at least {min_items} items (or None for all)")
    wide = _wide()
    rows = wide[wide["prompt_key"] == prompt_key].sort_values("elo_rank").reset_index(drop=True)
    return even_spread(rows, n_items).copy()


def elo_models(models=None) -> list[str]:
    """The paper RMs whose EloEverything scores were published: ``models`` checked against them (None: all 10)."""
    if models is None:
        return list(PAPER_RMS)
    models = as_list(models, "models")
    unknown = [m for m in models if m not in PAPER_RMS]
    if unknown or not models:
        raise ValueError(f"models {unknown or models} have no published EloEverything scores; "
                         f"published RMs: {list(PAPER_RMS)}")
    return models
