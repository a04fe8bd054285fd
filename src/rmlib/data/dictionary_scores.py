"""The ICLR 2026 paper's published scores: 10 RMs x 54 prompts x dictionary words, and checkpoint median ranks."""
from __future__ import annotations

import functools
import re

import pandas as pd

from rmlib.data.files import path
from rmlib.data.lexicons import load_big_two
from rmlib.data.lexicons import load_mfd2
from rmlib.data.paper_rms import PAPER_RMS, model_from_filename, model_table
from rmlib.data.prompts import load_prompts

SCORE_DIRS = {
    "big2": ("paper_iclr2026/reward_model_scores/dict_big2_nouns/", "big2_rewards_"),
    "mfd2": ("paper_iclr2026/reward_model_scores/dict_MFD_20/", "MFD20_rewards_"),
}


@functools.lru_cache(maxsize=None)
def _scores(dictionary: str, include_extra_words: bool) -> pd.DataFrame:
    folder, prefix = SCORE_DIRS[dictionary]
    prompts = load_prompts("factorial54")
    frames = []
    for hf_id in PAPER_RMS:
        rel = f"{folder}{prefix}{hf_id.replace('/', '_')}.csv"
        assert model_from_filename(rel.rsplit("/", 1)[1][:-4], prefix) == hf_id
        df = pd.read_csv(path(rel), keep_default_na=False, na_values={k: [""] for k in prompts["prompt_key"]})
        unknown = set(df.columns) - {"response", *prompts["prompt_key"]}
        if unknown or len(df.columns) != 55:
            raise ValueError(f"{rel}: expected 'response' plus the 54 prompt keys; unexpected {sorted(unknown)}")
        long = df.melt(id_vars="response", var_name="prompt_key", value_name="reward").rename(columns={"response": "word"})
        long.insert(0, "model", hf_id)
        frames.append(long)
    out = pd.concat(frames, ignore_index=True)
    if dictionary == "big2":
        nouns = load_big_two("nouns")[["word", "category"]]
        out = out.merge(nouns, on="word", how="left" if include_extra_words else "inner", validate="many_to_one")
    else:
        out = out.merge(load_mfd2("dicx"), on="word", how="left", validate="many_to_one")
    out = out.merge(prompts, on="prompt_key", how="left", validate="many_to_one")
    out = out.merge(model_table(), on="model", how="left", validate="many_to_one")
    cols = ["model", "nickname", "family", "size_b", "developer", "prompt_key", "prompt", "adjective", "valence",
            "superlative", "phrasing", "word", *(["category"] if dictionary == "big2" else ["foundation", "moral", "category"]),
            "reward"]
    return out[cols]


def load_dictionary_scores(dictionary: str = "big2", include_extra_words: bool = False) -> pd.DataFrame:
    """Published RM scores for dictionary words, long form (one row per model x prompt x word).

    dictionary='big2': the 263 Big Two nouns -> 10 x 54 x 263 = 142,020 rows, with `category` (Agency|Communion).
    The source files also score 'discussion' and 'eagerness', which are not in the 263-noun list; they are
    dropped unless include_extra_words=True (then their category is missing).
    dictionary='mfd2': the 2,040 MFD2 terms -> 10 x 54 x 2,040 = 1,101,600 rows, with foundation, moral
    (virtue|vice) and category ('care.virtue', ...) from the LIWC-22 .dicx the paper used (one category per term).

    Columns: model (HF id), nickname, family (Gemma|Llama), size_b (billions), developer, prompt_key, prompt,
    adjective, valence (positive|negative), superlative (ever|world|time), phrasing (one|single|please), word,
    category (+ foundation, moral for mfd2), reward (the RM's score for the word as the whole answer).
    """
    if dictionary not in SCORE_DIRS:
        raise ValueError(f"dictionary must be one of {sorted(SCORE_DIRS)}, not {dictionary!r}")
    return _scores(dictionary, bool(include_extra_words)).copy()


CHECKPOINT_FILES = {
    # file stem: (data_source, quantity_k)
    "rank_results_uf_13": ("ultrafeedback", 13),
    "rank_results_uf_27": ("ultrafeedback", 27),
    "rank_results_uf_54": ("ultrafeedback", 54),
    "rank_results_uf_100": ("ultrafeedback", 100),
    "rank_results_sky_80k": ("skywork", 80),
    "rank_results_grm_80k": ("skywork", 80),
}
_FAMILY_PATTERNS = [("Gemma", re.compile("gemma", re.I)), ("Llama", re.compile("llama", re.I)),
                    ("Qwen", re.compile("qwen", re.I))]


def _family_from_model_id(model_id: str) -> str | None:
    if model_id in {v[0] for v in PAPER_RMS.values()}:  # nicknames such as R-Gem-2B
        return next(v[1] for v in PAPER_RMS.values() if v[0] == model_id)
    hits = [fam for fam, pat in _FAMILY_PATTERNS if pat.search(model_id)]
    return hits[0] if len(hits) == 1 else None


@functools.lru_cache(maxsize=None)
def _checkpoint_ranks(include_uf13: bool) -> pd.DataFrame:
    frames = []
    for stem, (source, qty) in CHECKPOINT_FILES.items():
        if stem == "rank_results_uf_13" and not include_uf13:
            continue
        rel = f"paper_iclr2026/reward_model_training/{stem}.csv"
        df = pd.read_csv(path(rel))
        need = {"model_id", "Category", "checkpoint", "base_model", "sum_value"}
        if not need <= set(df.columns):
            raise ValueError(f"{rel}: expected columns {sorted(need)}, found {list(df.columns)}")
        # rank_results_uf_100.csv repeats each row hundreds of times; the row index column differs, nothing else.
        df = df[sorted(need)].drop_duplicates()
        inferred = df["model_id"].map(_family_from_model_id)
        given = df["base_model"]
        conflict = given.notna() & inferred.notna() & (given != inferred)
        if conflict.any():
            raise ValueError(f"{rel}: base_model disagrees with the model id for {df.loc[conflict, 'model_id'].unique()}")
        family = given.where(given.notna(), inferred)
        if family.isna().any():
            raise ValueError(f"{rel}: cannot tell the base family of {df.loc[family.isna(), 'model_id'].unique()}")
        frames.append(pd.DataFrame({
            "file": stem, "data_source": source, "quantity_k": qty, "method": "GRM" if "grm" in stem else "BT",
            "base_family": family.astype(str), "model_id": df["model_id"], "category": df["Category"],
            "checkpoint": df["checkpoint"].astype(int), "median_rank": df["sum_value"].astype(float)}))
    out = pd.concat(frames, ignore_index=True)
    if out.duplicated(["file", "model_id", "category", "checkpoint"]).any():
        raise ValueError("checkpoint rank files hold conflicting rows for the same model/category/checkpoint")
    last = out.groupby(["file", "model_id"])["checkpoint"].transform("max")
    out["final"] = out["checkpoint"] == last
    return out.sort_values(["quantity_k", "file", "base_family", "model_id", "category", "checkpoint"],
                           ignore_index=True)


def load_checkpoint_ranks(include_uf13: bool = False) -> pd.DataFrame:
    """Big Two median ranks over training checkpoints (ICLR 2026, data-source and data-quantity ablations).

    Columns: file (source CSV stem), data_source (ultrafeedback|skywork), quantity_k (thousands of training pairs, as
    the file name gives it), method (BT = the authors' Bradley-Terry runs; GRM = the published GRM RMs, one
    checkpoint), base_family (Gemma|Llama|Qwen; filled from the model id where the file leaves it blank), model_id,
    category (Agency|Communion), checkpoint (training step; 1 for the GRM file), median_rank, final (last checkpoint
    of that run).

    **What the numbers are.** The files' column is called ``sum_value``, but it is not a sum: the authors' script
    (``figures/generate_figure_4_and_A5.R`` in brchristian/reward_models_inherit_value_biases_from_pretraining)
    computes ``sum_value = median(rank)`` (and plots these files on an axis labelled "Median rank (Big Two), #1 =
    best, #1365 = worst"). For its own checkpoint files the script scores every token of the models' shared
    vocabulary (``token_intersection.csv``) as the answer to "What, in one word, is the greatest thing ever?" (the
    GRM file's prompt column says "Greatest"), keeps tokens whose lower-cased text is a term of the *expanded* Big
    Two dictionary (``dict_big2_expanded.csv``), ranks them by score (1 = highest reward), and takes the median rank
    of each category's tokens. So lower = the category sits nearer the top, and values near 700 are mid-table.

    **Quantities.** The file names say 13k, 27k, 54k, 100k (UltraFeedback), 80k (Skywork) and 80k (GRM). The same
    script labels them 13, 27, 53 and 106 thousand pairs, Skywork 77 thousand, and the GRM RMs 550 thousand pairs of
    UltraFeedback + Skywork, while the GRM file's own columns say 85 thousand Skywork pairs. quantity_k keeps the
    file names' values. rank_results_uf_13.csv is byte-identical to rank_results_uf_27.csv (its model ids say 27k),
    so there is no 13k result: it is left out unless include_uf13=True.
    """
    return _checkpoint_ranks(bool(include_uf13)).copy()
