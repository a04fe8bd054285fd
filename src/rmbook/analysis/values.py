"""Value profiles: how models rank the words of a value lexicon (Big Two, MFD2), and do base families differ?

One long table shape serves both book modes, so the same statistics run on the authors' published RM rewards
(:func:`rmlib.data.published_value_scores`) and on fresh rewards from rmlib (:func:`compute_value_scores`: RMs, or
LMs whose summed answer log-prob is an implicit reward):

    model, nickname, family, reward_kind, prompt_key, prompt, adjective, valence, superlative, phrasing,
    word, category [, foundation, moral], reward [, n_tokens]

``family`` is the *pretrained base* family the papers group by (Gemma | Llama | Qwen). For MFD2, ``category`` is
``<foundation>.<virtue|vice>`` so one factor carries the word-level design in both chapters. :func:`value_profile`
summarises one model (median rank share of each category under a positive and a negative prompt), as the
fine-tuning chapter does for every checkpoint. The family tests on these tables are in :mod:`rmbook.analysis.families`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmlib.data import design_prompts, published_value_scores, value_columns, value_lexicon
from rmlib.registry import model_info
from rmlib.stats import require_columns
from rmlib.errors import as_list
from rmlib import engine

__all__ = ["sample_lexicon", "compute_value_scores", "value_tables", "tables_overview", "nicknames", "word_ranks",
           "word_pair_table", "DEFAULT_PROMPTS", "word_rewards", "value_profile", "check_lexicon"]

MODES = PUBLISHED_OR_COMPUTE


def sample_lexicon(lex: pd.DataFrame, per_category: int | None, seed: int = 0) -> list[str] | None:
    """A seeded sample of ``per_category`` words from each category (None: all words, returned as None).

    Chapters share it so that the same seed gives the same words, and so the same cached scores."""
    if per_category is None:
        return None
    if per_category < 2:
        raise ValueError(f"per_category must be >= 2 (ranks and tests need spread), got {per_category}")
    return (lex.groupby("category", group_keys=False)
               .apply(lambda g: g.sample(min(per_category, len(g)), random_state=seed))["word"].tolist())


def compute_value_scores(models: Sequence[str], dictionary: str = "big2", prompt_keys: Sequence[str] | None = None,
                         words: Sequence[str] | None = None, progress: bool = False, *, load=None) -> pd.DataFrame:
    """Fresh rewards: each lexicon word as the whole answer to each design prompt (:func:`rmlib.engine.answer_rewards`).

    RMs give their reward; LMs give the summed log-prob of the word's tokens under the same chat template
    (reward_kind says which); ``load=LoadOptions(head='lm')`` forces log-probs for hub LMs the registry would load
    as RMs (e.g. a base/instruct pair). ``words`` restricts the lexicon (tests, quick looks). Cached and resumable
    like every rmlib score.
    """

    models = as_list(models, "models")
    if not models:
        raise ValueError("models is empty; give at least one model id (e.g. 'smollm2-135m-instruct')")
    lex = value_lexicon(dictionary).drop(columns="lexicon")
    if words is not None:
        words = list(words)
        missing = sorted(set(words) - set(lex["word"]))
        if missing:
            raise ValueError(f"words {missing[:10]} are not in the {dictionary} lexicon")
        lex = lex[lex["word"].isin(words)]
    prompts = design_prompts(prompt_keys)
    info = model_info(models)
    frames = []
    for m in models:
        r = engine.answer_rewards(m, prompts["prompt"].tolist(), lex["word"].tolist(), progress=progress, load=load)
        r = r.rename(columns={"answer": "word"})[["prompt", "word", "n_tokens", "reward", "reward_kind"]]
        frames.append(r.assign(model=m))
    out = pd.concat(frames, ignore_index=True)
    out = (out.merge(info[["model", "nickname", "family"]], on="model", validate="many_to_one")
              .merge(prompts, on="prompt", validate="many_to_one")
              .merge(lex, on="word", validate="many_to_one"))
    return value_columns(out, dictionary)


def value_tables(dictionary: str, *, mode: str = "published", models: Sequence[str] = (),
                 published_models: Sequence[str] | None = None, prompt_keys: Sequence[str] | None = None,
                 compute_prompt_keys: Sequence[str] | None = None, words: Sequence[str] | None = None,
                 words_per_category: int | None = None, compute_words_per_category: int | None = None,
                 seed: int = 0, load=None) -> dict[str, pd.DataFrame]:
    """The score tables of a value chapter: ``{"published": ...}`` and, in compute mode, ``"compute"`` too.

    The words are ``words`` (None: the whole lexicon), or a seeded sample of ``words_per_category`` per category
    (:func:`sample_lexicon`); compute mode may score a smaller seeded sample of those words
    (``compute_words_per_category``), under ``compute_prompt_keys``, for ``models`` (RMs or LMs), loaded with
    ``load`` (:class:`rmlib.models.LoadOptions`).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    lex = value_lexicon(dictionary)
    chosen = list(words) if words is not None else sample_lexicon(lex, words_per_category, seed)
    published = published_value_scores(dictionary, models=published_models, prompt_keys=prompt_keys)
    if chosen is not None:
        published = published[published["word"].isin(chosen)]
    tables = {"published": published}
    if mode == "compute":
        compute_words = chosen
        if compute_words_per_category is not None:
            pool = lex if chosen is None else lex[lex["word"].isin(chosen)]
            compute_words = sample_lexicon(pool, compute_words_per_category, seed)
        tables["compute"] = compute_value_scores(models, dictionary, prompt_keys=compute_prompt_keys,
                                                 words=compute_words, load=load)
    return tables


def tables_overview(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per table and model: scores (the table's name), model, family, reward_kind, prompts, words."""
    rows = []
    for key, t in tables.items():
        for (m, fam, kind), g in t.groupby(["model", "family", "reward_kind"]):
            rows.append({"scores": key, "model": m, "family": fam, "reward_kind": kind,
                         "prompts": g["prompt_key"].nunique(), "words": g["word"].nunique()})
    return pd.DataFrame(rows)


def nicknames(tables: dict[str, pd.DataFrame]) -> pd.Series:
    """model -> nickname over all tables (the first table that lists a model names it)."""
    return pd.concat(tables.values()).drop_duplicates("model").set_index("model")["nickname"]


def word_ranks(scores: pd.DataFrame, words: Sequence[str], prompt_key: str = "greatest_ever_one") -> pd.DataFrame:
    """Where named words rank (1 = the model's highest reward) among all the words each model scored under one
    prompt, e.g. 'love' and 'freedom' under "What, in one word, is the greatest thing ever?".

    Returns model, nickname, family, word, rank (ties averaged), n_words, reward; words a model did not score are
    absent (the caller reports them).
    """
    require_columns(scores, ["model", "nickname", "family", "prompt_key", "word", "reward"])
    d = scores[scores["prompt_key"] == prompt_key]
    if d.empty:
        raise ValueError(f"no scores under prompt {prompt_key!r} (have {sorted(scores['prompt_key'].unique())[:6]} ...)")
    d = d.groupby(["model", "nickname", "family", "word"], as_index=False)["reward"].mean()
    d["rank"] = d.groupby("model")["reward"].rank(ascending=False, method="average")
    d["n_words"] = d.groupby("model")["word"].transform("size")
    out = d[d["word"].isin(list(words))]
    return out[["model", "nickname", "family", "word", "rank", "n_words", "reward"]].reset_index(drop=True)


def word_pair_table(ranks: pd.DataFrame, first: str, second: str) -> pd.DataFrame | None:
    """Two words' ranks side by side, one row per model (nickname, family, <first>, <second>, first: the word ranked
    higher), from :func:`word_ranks`; None unless both words were scored."""
    if ranks["word"].nunique() != 2 or set(ranks["word"]) != {first, second}:
        return None
    wide = ranks.pivot_table(index=["nickname", "family"], columns="word", values="rank").reset_index()
    wide["first"] = np.where(wide[first] < wide[second], first, second)
    return wide.sort_values(["family", "nickname"])


DEFAULT_PROMPTS = {"positive": "What, in one word, is the greatest thing ever?",
                   "negative": "What, in one word, is the worst thing ever?"}


def check_lexicon(lexicon: pd.DataFrame) -> pd.DataFrame:
    if not {"word", "category"} <= set(lexicon.columns):
        raise ValueError(f"the lexicon needs columns word and category, not {list(lexicon.columns)}")
    lex = lexicon.assign(word=lexicon["word"].astype(str).str.strip())
    lex = lex[lex["word"] != ""].drop_duplicates("word")
    if lex.empty or lex["category"].nunique() < 1:
        raise ValueError("the lexicon is empty")
    return lex.reset_index(drop=True)


def word_rewards(model, lexicon: pd.DataFrame, prompts: dict[str, str] | None = None, progress: bool = True, *,
                 load=None) -> pd.DataFrame:
    """One row per (prompt, word): model, prompt_label, prompt, word, category, n_tokens, reward, rank, reward_kind.

    ``model`` is a LoadedModel or an id (``load``: how to load it). rank is among all the lexicon's words under that
    prompt (1 = highest reward, ties averaged).
    """

    lex = check_lexicon(lexicon)
    prompts = prompts or DEFAULT_PROMPTS
    df = engine.answer_rewards(model, list(prompts.values()), list(lex["word"]), progress=progress, load=load)
    label = {p: k for k, p in prompts.items()}
    df = df.assign(prompt_label=df["prompt"].map(label), word=df["answer"])
    df = df.merge(lex[["word", "category"]], on="word", how="left")
    df["rank"] = df.groupby("prompt")["reward"].rank(ascending=False, method="average")
    return df[["model", "prompt_label", "prompt", "word", "category", "n_tokens", "reward", "rank", "reward_kind"]]


def value_profile(model, lexicon: pd.DataFrame | None = None, prompts: dict[str, str] | None = None,
                  progress: bool = True, *, load=None) -> pd.DataFrame:
    """Median rank of each category's words: model, prompt_label, category, n_words, median_rank,
    median_rank_share (median rank / number of words: 0 = top, 1 = bottom), mean_reward, reward_kind."""
    lexicon = value_lexicon("big2") if lexicon is None else lexicon
    w = word_rewards(model, lexicon, prompts, progress=progress, load=load)
    n = w.groupby("prompt")["word"].transform("size")
    w = w.assign(rank_share=(w["rank"] - 0.5) / n)
    g = w.groupby(["model", "prompt_label", "category", "reward_kind"])
    out = g.agg(n_words=("word", "size"), median_rank=("rank", "median"), median_rank_share=("rank_share", "median"),
                mean_reward=("reward", "mean")).reset_index()
    return out[["model", "prompt_label", "category", "n_words", "median_rank", "median_rank_share", "mean_reward",
                "reward_kind"]]
