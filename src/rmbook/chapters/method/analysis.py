"""The method chapter's analyses: live token sweeps and their extremes, the decode->encode round-trip audit per model,
and the id-exact vs paper-mode scores of one model, each returning a frame or dict a test can check."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rmlib import engine
from rmlib import models as rm_models
from rmlib.errors import as_list
from rmlib.registry import get_spec
from rmlib.stats import require_columns

__all__ = ["live_sweeps", "sweep_head", "sweep_overview", "extremes", "roundtrip_table", "compare_modes",
           "mode_differences"]


def live_sweeps(models: Sequence[str], prompts: Sequence[str], tokens: int | None, top_k: int) -> pd.DataFrame:
    """Every model's token sweep for every prompt (the first ``tokens`` ids, or all), one long table with a
    ``model_label`` (the registry nickname, else the id); refuses empty lists and too few tokens for the tables."""
    models, prompts = as_list(models, "MODELS"), as_list(prompts, "PROMPT_TEXTS")
    if not models or not prompts:
        raise ValueError("MODELS and PROMPT_TEXTS must each name at least one entry")
    if tokens is not None and tokens < 2 * top_k:
        raise ValueError(f"TOKENS={tokens} is smaller than 2 x TOP_K={2 * top_k}; raise TOKENS or lower TOP_K")
    ids = None if tokens is None else slice(0, int(tokens))
    sweeps = pd.concat([engine.token_rewards(m, p, tokens=ids, progress=False) for m in models for p in prompts],
                       ignore_index=True)
    sweeps["model_label"] = sweeps["model"].map({m: (get_spec(m).nickname or m) for m in models})
    return sweeps


def sweep_head(sweeps: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The first ``n`` rows of the first model x prompt sweep, as a reader should first meet the table: the columns
    that vary per token (the model, prompt and label, the same in every row, are said in the caption instead) and
    none that is empty in every row shown."""
    require_columns(sweeps, ["model", "prompt"])
    first = sweeps[(sweeps["model"] == sweeps["model"].iloc[0]) & (sweeps["prompt"] == sweeps["prompt"].iloc[0])]
    head = first.head(n).drop(columns=[c for c in ("model", "prompt", "model_label") if c in first])
    return head.dropna(axis="columns", how="all").reset_index(drop=True)


def sweep_overview(sweeps: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """One row per model: its label, reward kind and the number of tokens swept per prompt."""
    require_columns(sweeps, ["model", "model_label", "prompt", "reward_kind"])
    first = sweeps.groupby("model")[["model_label", "reward_kind"]].first()
    n_prompts = sweeps["prompt"].nunique()
    return pd.DataFrame({"model": [first.loc[m, "model_label"] for m in models],
                         "reward kind": [first.loc[m, "reward_kind"] for m in models],
                         "tokens swept": [int((sweeps.model == m).sum() / n_prompts) for m in models]})


def extremes(one: pd.DataFrame, top_k: int) -> dict:
    """The optimal and pessimal rows of one model x prompt sweep; for a log-prob reward also the probability of the
    optimal token and of the top ``top_k`` together (``p_best``, ``top_mass``; None for other rewards)."""
    best, worst = one.loc[one.reward.idxmax()], one.loc[one.reward.idxmin()]
    is_lm = str(one["reward_kind"].iloc[0]).startswith("LM")
    return {"best": best, "worst": worst, "p_best": float(np.exp(best.reward)) if is_lm else None,
            "top_mass": float(np.exp(one.nlargest(top_k, "reward").reward).sum()) if is_lm else None}


def roundtrip_table(models: Sequence[str], labels: dict, tokens: int | None) -> pd.DataFrame:
    """One row per model from :func:`rmlib.engine.roundtrip_audit`: ids checked and changed by decode->encode, the
    leading BOS count in paper and id-exact mode, and up to three examples."""
    models = as_list(models, "models")
    ids = None if tokens is None else slice(0, int(tokens))
    rows = []
    for m in models:
        a = engine.roundtrip_audit(m, tokens=ids)
        rows.append({"model": labels[m], "ids checked": a["n_ids"], "ids changed by decode→encode": a["n_changed"],
                     "share changed": a["share_changed"], "leading BOS, paper mode": a["paper_mode_leading_bos"],
                     "leading BOS, id-exact": a["id_exact_leading_bos"],
                     "examples (id, decoded, re-encoded)": "; ".join(f"{i} {d!r}→{e}" for i, d, e in a["examples"][:3])})
    return pd.DataFrame(rows)


def compare_modes(model_id: str, prompt: str, n_tokens: int):
    """Ids 0..n_tokens-1 of ``model_id`` with an UNTRAINED scalar head scored in id-exact and paper mode: per id both
    scores, the paper mode's BOS count, whether the id survives decode->encode and the absolute difference.
    Returns (the loaded demo model, the table); the head is random, so only the differences mean anything."""
    demo = rm_models.load_model(model_id, head="rm", allow_untrained_head=True)
    if not demo.untrained_head:
        raise AssertionError("the demo must use an untrained head and say so")
    ids = slice(0, int(n_tokens))
    exact = engine.sweep(demo, prompt, tokens=ids, progress=False).frame
    paper = engine.sweep(demo, prompt, tokens=ids, mode="paper", progress=False).frame
    both = exact[["token_id", "text", "score"]].merge(paper[["token_id", "score", "n_bos"]], on="token_id",
                                                      suffixes=("_id_exact", "_paper"))
    tok = demo.tokenizer
    both["round_trip_ok"] = [tok(t, add_special_tokens=False).input_ids == [int(i)]
                             for i, t in zip(both.token_id, both.text)]
    both["abs_difference"] = (both.score_id_exact - both.score_paper).abs()
    both["mode"] = np.where(both.round_trip_ok, "round trip ok", "id changed by round trip")
    return demo, both


def mode_differences(both: pd.DataFrame) -> dict:
    """How far paper mode moves the scores of :func:`compare_modes`: the difference by round-trip status, the
    correlation of the two modes, and the share of ids whose scores differ by more than 1% of the score SD (``tol``,
    above bfloat16 rounding between batch layouts)."""
    tol = 0.01 * float(both.score_id_exact.std())
    return {"by_mode": both.groupby("mode")["abs_difference"].agg(["count", "median", "max"]),
            "r_modes": float(np.corrcoef(both.score_id_exact, both.score_paper)[0, 1]), "tol": tol,
            "share_diff": float((both.abs_difference > tol).mean())}
