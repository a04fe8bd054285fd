"""EloEverything: 7,530 items with human Elo ratings and the 10 paper RMs' scores, under 3 prompts."""
from __future__ import annotations

import functools

import pandas as pd

from rmlib.data.paper_rms import PAPER_RMS
from rmlib.data.prompts import ELO_PROMPTS

ELO_FILES = {
    "greatest": "paper_facct2025/elo/greatest_thing_one_word.csv",
    "greatest_single_thing_person_concept": "paper_facct2025/elo/greatest_single_thing_person_concept.csv",
    "humans_most_prefer": "paper_facct2025/elo/humans_most_prefer.csv",
}


@functools.lru_cache(maxsize=None)
def _wide() -> pd.DataFrame:
    from rmlib.data.files import path

    frames = []
    for key, rel in ELO_FILES.items():
        # keep_default_na=False: items such as "None" or "NA" are words, not missing values.
        df = pd.read_csv(path(rel), keep_default_na=False, na_values={m: [""] for m in PAPER_RMS})
        missing = set(PAPER_RMS) - set(df.columns)
        if missing:
            raise ValueError(f"{rel}: expected a score column for every paper RM; missing {sorted(missing)}")
        df = df.rename(columns={"name": "item"})
        df.insert(1, "prompt_key", key)
        df.insert(2, "prompt", ELO_PROMPTS[key])
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
