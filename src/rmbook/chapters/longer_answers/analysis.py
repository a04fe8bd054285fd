"""Multi-token optima and pessima (GCG search, :mod:`rmlib.engine.gcg`) against the one-token ones of the exhaustive
sweep: the analyses of the ``longer_answers`` chapter.

* :func:`search_runs`: GCG for every model x prompt x length x direction, with the models that are absent here
  (e.g. a fine-tuned RM that only a full ``make book`` trains) listed with the reason instead of failing;
* :func:`one_token_references`: each model's exhaustive one-token sweep of the same prompts;
* :func:`final_optima`, :func:`compare_with_one_token`: the best response of each restart, and whether it goes
  beyond the best one-token answer and contains it;
* :func:`answer_category`, :func:`category_sharing`: what kinds of tokens fill the multi-token optima and pessima,
  compared with the one-token tails (identity terms from :func:`rmlib.data.identity_terms`, else
  :func:`rmbook.analysis.categories.token_category`);
* :func:`length_and_reward`: published mode, the paper RMs' released scores of EloEverything answers against their
  length in words.

Torch-free at import: the engine's faces (``rmlib.engine``, its ``gcg`` package, ``rmlib.models``) load their
modules when a search or sweep runs.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmbook.analysis.categories import token_category
from rmbook.analysis.choices import ANY_MODE
from rmlib import engine
from rmlib import models as rm_models
from rmlib.engine import gcg
from rmlib.errors import as_list

__all__ = ["MODES", "where_gcg_stands", "search_runs", "one_token_references", "final_optima", "compare_with_one_token",
           "answer_category", "category_sharing", "length_and_reward", "IDENTITY"]

MODES = ANY_MODE  # the released scores of longer answers; fresh GCG searches

IDENTITY = "identity term"
GROUP = ["model", "prompt_key", "direction", "length"]


def search_runs(models: Sequence[str], prompts: dict[str, str], lengths: Sequence[int],
                directions: Sequence[str] = ("max", "min"), *, steps: int, restarts: int, config=None, seed: int = 0,
                tokens=None, load=None, progress: bool = False) -> tuple[pd.DataFrame, dict[str, str]]:
    """GCG search (one restart per shard, cached) of every model x prompt x length x direction.

    Returns (rows, absent): the rows of every search (:func:`rmlib.engine.gcg.gcg`'s frame with a ``prompt_key``
    column) and {model: why it could not be loaded} for the models that are not available here. ``tokens``: the
    vocabulary slice searched (give the one-token reference the same one). Only a failure to
    *load* makes a model absent; any error of the search itself propagates."""
    frames, absent = [], {}
    for m in as_list(models, "models"):
        try:
            lm = engine.resolve_model(m, load)
        except (rm_models.ModelError, ImportError, OSError) as exc:
            absent[m] = str(exc)
            continue
        for key, prompt in prompts.items():
            for n in lengths:
                for d in directions:
                    res = gcg.gcg(lm, prompt, length=n, direction=d, steps=steps, restarts=restarts, seed=seed,
                                  config=config, tokens=tokens, progress=progress)
                    frames.append(res.frame.assign(model=m, prompt_key=key))
    if not frames:
        return pd.DataFrame(columns=["model", "prompt_key", "direction", "length", "restart", "step", "reward"]), absent
    return pd.concat(frames, ignore_index=True), absent


def one_token_references(models: Iterable[str], prompts: dict[str, str], *, tokens=None, load=None) -> pd.DataFrame:
    """Each model's exhaustive one-token sweep of each prompt (cached; shared with the other chapters): model,
    prompt_key, token_id, text, reward, reward_kind. Special tokens and blank answers are dropped (GCG never
    proposes them)."""
    frames = []
    for m in as_list(models, "models"):
        for key, prompt in prompts.items():
            df = engine.token_rewards(m, prompt, tokens=tokens, progress=False, load=load)
            df = df[~df["is_special"] & df["text"].str.strip().ne("")]
            frames.append(df.assign(model=m, prompt_key=key)[["model", "prompt_key", "token_id", "text", "reward",
                                                              "reward_kind"]])
    return pd.concat(frames, ignore_index=True)


def final_optima(runs: pd.DataFrame) -> pd.DataFrame:
    """The best response of each restart: the row of its last step."""
    last = runs.groupby(GROUP + ["restart"])["step"].transform("max")
    return runs[runs["step"] == last].reset_index(drop=True)


def _extreme(ref: pd.DataFrame, direction: str) -> pd.Series:
    return ref.loc[ref["reward"].idxmax() if direction == "max" else ref["reward"].idxmin()]


def compare_with_one_token(optima: pd.DataFrame, reference: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    """One row per model x prompt x direction x length: the restarts' best and median reward, the one-token extreme
    (the sweep's best answer for max, worst for min), ``n_beyond``: restarts whose optimum lies beyond it (a higher
    reward for max, lower for min), ``n_contains_top1``: restarts whose optimum contains that one-token answer's id,
    and ``n_contains_topk``: ... any of the k one-token extremes' ids."""
    rows = []
    for (m, key, d, n), g in optima.groupby(GROUP, sort=False):
        ref = reference[(reference["model"] == m) & (reference["prompt_key"] == key)]
        if ref.empty:
            raise ValueError(f"no one-token sweep of {m} for prompt {key!r}")
        ext = _extreme(ref, d)
        tail = ref.nlargest(k, "reward") if d == "max" else ref.nsmallest(k, "reward")
        top_ids = set(tail["token_id"].astype(int))
        beyond = g["reward"] > ext["reward"] if d == "max" else g["reward"] < ext["reward"]
        ids = [set(int(i) for i in x) for x in g["ids"]]
        best = g["reward"].max() if d == "max" else g["reward"].min()
        rows.append({"model": m, "prompt_key": key, "direction": d, "length": int(n), "n_restarts": len(g),
                     "best": float(best), "median": float(g["reward"].median()),
                     "one_token_extreme": float(ext["reward"]), "one_token_text": ext["text"],
                     "n_beyond": int(beyond.sum()),
                     "n_contains_top1": int(sum(int(ext["token_id"]) in s for s in ids)),
                     "n_contains_topk": int(sum(bool(s & top_ids) for s in ids)),
                     "best_text": g.loc[g["reward"].idxmax() if d == "max" else g["reward"].idxmin(), "text"]})
    return pd.DataFrame(rows)


def answer_category(text: str, identity: frozenset[str] = frozenset()) -> str:
    """'identity term' when the token (stripped, lower-case) is an identity term, else its token category."""
    return IDENTITY if text.strip().lower() in identity else token_category(text)


def category_sharing(optima: pd.DataFrame, reference: pd.DataFrame, k: int = 50,
                     identity: Iterable[str] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Do the multi-token optima (max) and pessima (min) use the same kinds of tokens as the one-token ones?

    Per model x prompt x direction, every token of the restarts' optima at lengths > 1 gets a category
    (:func:`answer_category`), and so does each of the sweep's k most extreme one-token answers in that direction.
    Returns (shares, summary): shares has one row per category with ``multi`` and ``one_token`` shares;
    summary has the overlap sum(min(multi, one_token)) (1: the same mix, 0: no category in common), the modal
    category of each, and the categories that hold >= 10% in both."""
    identity = frozenset(t.lower() for t in identity)
    share_rows, summary = [], []
    multi = optima[optima["length"] > 1]
    for (m, key, d), g in multi.groupby(["model", "prompt_key", "direction"], sort=False):
        ref = reference[(reference["model"] == m) & (reference["prompt_key"] == key)]
        tail = ref.nlargest(k, "reward") if d == "max" else ref.nsmallest(k, "reward")
        a = pd.Series([answer_category(t, identity) for toks in g["tokens"] for t in toks]).value_counts(normalize=True)
        b = pd.Series([answer_category(t, identity) for t in tail["text"]]).value_counts(normalize=True)
        both = pd.concat([a.rename("multi"), b.rename("one_token")], axis=1).fillna(0.0)
        share_rows += [{"model": m, "prompt_key": key, "direction": d, "category": c, **r}
                       for c, r in both.to_dict("index").items()]
        common = sorted(both.index[(both["multi"] >= 0.1) & (both["one_token"] >= 0.1)])
        summary.append({"model": m, "prompt_key": key, "direction": d,
                        "overlap": float(np.minimum(both["multi"], both["one_token"]).sum()),
                        "modal_multi": a.idxmax(), "modal_one_token": b.idxmax(), "shared_categories": common,
                        "n_tokens_multi": int(sum(len(t) for t in g["tokens"])), "k": int(len(tail))})
    return pd.DataFrame(share_rows), pd.DataFrame(summary)


def length_and_reward(scores: pd.DataFrame) -> pd.DataFrame:
    """Published mode: per model x prompt, Spearman's rho between an answer's length in words and its reward, with
    the mean reward of one-word and of longer answers (EloEverything items scored by the paper RMs)."""
    rows = []
    words = scores["item"].str.split().str.len()
    for (m, key), g in scores.assign(n_words=words).groupby(["model", "prompt_key"], sort=False):
        rho = stats.spearmanr(g["n_words"], g["reward"])
        one, more = g.loc[g["n_words"] == 1, "reward"], g.loc[g["n_words"] > 1, "reward"]
        rows.append({"model": m, "prompt_key": key, "n_items": len(g), "share_multi_word": float((g["n_words"] > 1).mean()),
                     "rho": float(rho.statistic), "p": float(rho.pvalue), "mean_one_word": float(one.mean()),
                     "mean_multi_word": float(more.mean())})
    return pd.DataFrame(rows)


def where_gcg_stands(model: str, optima: pd.DataFrame, prompts: dict, load=None):
    """``(lm, ids, best, objective)`` at the best maximised response of ``model``'s longest search under the first
    of ``prompts``: the point where the course's exercises compare a student's gradient and candidates with the
    library's (``objective`` maximises, so its gradient is the reward's own)."""
    lm = engine.resolve_model(model, load)
    key, prompt = next(iter(prompts.items()))
    g = optima[(optima["model"] == model) & (optima["prompt_key"] == key) & (optima["direction"] == "max")]
    best = g[g["length"] == g["length"].max()].sort_values("reward").iloc[-1]
    ids = [int(i) for i in best["ids"]]
    return lm, ids, best, gcg.Objective(lm, rm_models.answer_slot(lm.tokenizer, prompt, lm.chat_template), "max")
