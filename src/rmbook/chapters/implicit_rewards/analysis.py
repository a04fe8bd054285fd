"""Implicit rewards between language models: the mixture-weighted log ratio of two LMs (MWLR) and the DPO log-ratio
of an instruct model and its base, in the value-profile shape, one pseudo-model per pair."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from scipy import stats

from rmbook.analysis import values as vp
from rmlib import engine
from rmlib import models as rm_models
from rmlib.data import DPO_KIND, MWLR_KIND, is_lm_logprob, token_frequency, value_columns
from rmlib.data import value_lexicon
from rmlib.errors import as_list
from rmlib.registry import model_info
from rmlib.stats import require_columns, top_bottom

__all__ = ["mwlr", "dpo_log_ratio", "implicit_reward_scores", "require_lms", "families_with_base_and_instruct",
           "lm_token_sweeps", "top_bottom_tokens", "top_bottom_wide", "logit_logprob_agreement", "pooled_top_tau",
           "mean_zipf", "published_top_answers", "rm_top_tokens",
           "valence_summary", "family_panel", "top_answers_list", "lexicon_implicit_rewards"]


def mwlr(logp1, logp2):
    """Mixture-weighted log ratio ½(p₁+p₂)(log p₁ − log p₂) from (summed) log-probs.

    Positive when model 1 gives the word more probability; antisymmetric in its arguments; weighted towards words
    that at least one model finds likely, so rare strings with large but meaningless ratios do not dominate.
    """
    a, b = np.asarray(logp1, dtype=float), np.asarray(logp2, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"mwlr: log-prob arrays differ in shape {a.shape} vs {b.shape}")
    if np.any(a > 1e-6) or np.any(b > 1e-6):
        raise ValueError("mwlr: inputs must be log-probabilities (<= 0); got positive values (raw logits?)")
    return 0.5 * (np.exp(a) + np.exp(b)) * (a - b)


def dpo_log_ratio(logp_policy, logp_reference, beta: float = 1.0):
    """DPO's implicit reward β (log π(y|x) − log π_ref(y|x)) for an instruct (policy) model and its base."""
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    a, b = np.asarray(logp_policy, dtype=float), np.asarray(logp_reference, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"dpo_log_ratio: log-prob arrays differ in shape {a.shape} vs {b.shape}")
    return beta * (a - b)


def implicit_reward_scores(lm_scores: pd.DataFrame, pairs: Sequence[tuple[str, str]], kind: str = "mwlr",
                           beta: float = 1.0) -> pd.DataFrame:
    """Implicit rewards from LM log-prob tables (:func:`rmbook.analysis.values.compute_value_scores` of LMs), one
    pseudo-model per pair.

    kind='mwlr': pairs are (LM of family A, LM of family B); model = 'MWLR(A‖B)', family = 'A−B' (positive = A
    prefers the word). kind='dpo': pairs are (instruct model, its base); model = 'DPO(instruct/base)', family = the
    shared family.
    """
    if kind not in ("mwlr", "dpo"):
        raise ValueError(f"kind must be 'mwlr' or 'dpo', not {kind!r}")
    require_columns(lm_scores, ["model", "nickname", "family", "reward_kind", "prompt_key", "word", "reward"])
    not_lm = lm_scores.loc[~lm_scores["reward_kind"].map(is_lm_logprob), "model"].unique()
    if len(not_lm):
        raise ValueError(f"implicit rewards need LM log-probs; {list(not_lm)} are scored as "
                         f"{lm_scores.loc[lm_scores['model'].isin(not_lm), 'reward_kind'].iloc[0]!r}")
    keys = [c for c in lm_scores.columns if c not in ("model", "nickname", "family", "reward_kind", "reward",
                                                      "n_tokens")]
    frames = []
    for a, b in pairs:
        if a == b:
            raise ValueError(f"pair ({a!r}, {b!r}) compares a model with itself")
        sa, sb = (lm_scores[lm_scores["model"] == m] for m in (a, b))
        for m, s in ((a, sa), (b, sb)):
            if s.empty:
                raise ValueError(f"model {m!r} is not in the log-prob table (has {sorted(lm_scores['model'].unique())})")
        fa, fb = sa["family"].iloc[0], sb["family"].iloc[0]
        na, nb = sa["nickname"].iloc[0], sb["nickname"].iloc[0]
        if kind == "mwlr" and fa == fb:
            raise ValueError(f"MWLR compares families; {a} and {b} are both {fa}")
        if kind == "dpo" and fa != fb:
            raise ValueError(f"a DPO log-ratio needs an instruct model and its own base; {a} is {fa}, {b} is {fb}")
        j = sa[keys + ["reward"]].merge(sb[["prompt_key", "word", "reward"]], on=["prompt_key", "word"],
                                        suffixes=("_a", "_b"), validate="one_to_one")
        if len(j) != len(sa) or len(j) != len(sb):
            raise ValueError(f"{a} and {b} were not scored on the same prompts and words")
        if kind == "mwlr":
            reward = mwlr(j["reward_a"], j["reward_b"])
            label, family, rk = f"MWLR({na}‖{nb})", f"{fa}−{fb}", MWLR_KIND
        else:
            reward = dpo_log_ratio(j["reward_a"], j["reward_b"], beta)
            label, family, rk = f"DPO({na}/{nb})", fa, DPO_KIND
        frames.append(j[keys].assign(model=label, nickname=label, family=family, reward_kind=rk, reward=reward))
    if not frames:
        raise ValueError("pairs is empty")
    out = pd.concat(frames, ignore_index=True)
    dictionary = "mfd2" if "foundation" in out.columns else "big2"
    return value_columns(out, dictionary)




def require_lms(models: Sequence[str]) -> None:
    """Refuse reward models among ``models``: an implicit reward needs an LM's log-probs, which an RM head lacks."""
    info = model_info(as_list(models, "models"))
    not_lm = info.loc[info["kind"] != "lm", "model"].tolist()
    if not_lm:
        raise ValueError(f"LMS must be causal LMs (scored by log-prob); {not_lm} are reward models: put them in RM_MODELS")


def families_with_base_and_instruct(evidence: pd.DataFrame) -> list[str]:
    """Families with at least one ``base`` and one ``instruct`` verdict in ``evidence`` (rows of
    :func:`rmlib.models.instruct_evidence`): the only ones where a DPO instruct-vs-base log-ratio exists."""
    require_columns(evidence, ["family", "verdict"])
    by_family = evidence.groupby("family")["verdict"].agg(set)
    return [f for f, v in by_family.items() if {"base", "instruct"} <= v]


def lm_token_sweeps(models: Sequence[str], prompts: pd.Series, prompt_keys: Sequence[str], tokens, load) -> pd.DataFrame:
    """Every model's first-answer-token sweep for each prompt key (``prompts``: prompt text by key), one long table
    with logits and log-probs, so the two can be compared within and across models."""
    models, prompt_keys = as_list(models, "models"), as_list(prompt_keys, "prompt_keys")
    unknown = sorted(set(prompt_keys) - set(prompts.index))
    if unknown:
        raise ValueError(f"SWEEP_PROMPT_KEYS {unknown} unknown; choose from {list(prompts.index)}")
    parts = []
    for m in models:
        for key in prompt_keys:
            f = engine.token_rewards(m, prompts.loc[key], tokens=tokens, progress=False, load=load)
            parts.append(f.assign(prompt_key=key)[["model", "prompt_key", "token_id", "text", "is_special", "logit",
                                                   "logprob", "reward_kind"]])
    return pd.concat(parts, ignore_index=True)


def top_bottom_tokens(sweeps: pd.DataFrame, k: int) -> pd.DataFrame:
    """The k most and least probable visible tokens (not special, not blank) per model x prompt, with ``end``
    (top/bottom) and ``rank`` (1 = the extreme)."""
    visible = sweeps[~sweeps["is_special"] & sweeps["text"].str.strip().ne("")]
    return (top_bottom(visible, "logprob", k, by=["model", "prompt_key"])
            .rename(columns={"tail": "end", "tail_rank": "rank"}).reset_index(drop=True))


def top_bottom_wide(group: pd.DataFrame) -> pd.DataFrame:
    """One model x prompt of :func:`top_bottom_tokens` side by side: rank by (top, bottom) x (text, logprob, logit)."""
    wide = group.pivot(index="rank", columns="end", values=["text", "logprob", "logit"])
    wide.columns = [f"{e} {c}" for c, e in wide.columns]
    return wide[[f"{e} {c}" for e in ("top", "bottom") for c in ("text", "logprob", "logit")]]


def logit_logprob_agreement(sweeps: pd.DataFrame) -> pd.DataFrame:
    """Per model x prompt: the log-sum-exp (logit - log-prob, one constant in exact arithmetic), its spread (rounding
    only) and Kendall's tau between logits and log-probs (1: the same ranking)."""
    rows = []
    for (m, key), g in sweeps.groupby(["model", "prompt_key"], sort=False):
        offset = g["logit"] - g["logprob"]
        rows.append({"model": m, "prompt_key": key, "logsumexp": offset.mean(), "offset_spread": offset.std(),
                     "kendall_tau_logit_vs_logprob": stats.kendalltau(g["logit"], g["logprob"]).statistic})
    return pd.DataFrame(rows)


def pooled_top_tau(topbot: pd.DataFrame) -> float:
    """Kendall's tau between logits and log-probs over the top tokens of all models pooled: below 1 when the
    models' logits carry different offsets, i.e. raw logits do not compare across models."""
    pooled = topbot[topbot["end"] == "top"]
    return float(stats.kendalltau(pooled["logit"], pooled["logprob"]).statistic)


def mean_zipf(words) -> float:
    """Mean Zipf frequency of ``words``: log10 of the frequency per billion words (7 is 'the', 3 a rare word), from
    :func:`rmlib.data.token_frequency` per million with a 1e-3 floor so unseen words stay finite; NaNs are skipped."""
    freq = np.array([token_frequency(w) for w in words], dtype=float)
    return float(np.nanmean(np.log10(freq + 1e-3) + 3))


def published_top_answers(elo: pd.DataFrame, prompt_key: str, k: int) -> pd.DataFrame:
    """Each published RM's k highest-rewarded EloEverything answers to one prompt (model, item, reward)."""
    return (elo[elo["prompt_key"] == prompt_key].sort_values("reward", ascending=False)
            .groupby("model").head(k)[["model", "item", "reward"]])


def rm_top_tokens(models: Sequence[str], prompt: str, tokens, k: int, load) -> list[pd.DataFrame]:
    """Each reward model's k highest-rewarded tokens as the answer to ``prompt`` (model, text, reward); refuses a
    model whose reward is not an RM score, since the contrast is LM log-probs vs trained RMs."""
    out = []
    for m in as_list(models, "models"):
        f = engine.token_rewards(m, prompt, tokens=tokens, progress=False, load=load)
        if not (f["reward_kind"] == "RM score").all():
            raise ValueError(f"RM_MODELS: {m} is not a reward model (its reward is {f['reward_kind'].iloc[0]!r})")
        out.append(f.nlargest(k, "reward")[["model", "text", "reward"]])
    return out


def valence_summary(tests: pd.DataFrame) -> dict:
    """Counts from virtue-vs-vice panels (:func:`rmbook.analysis.families.word_contrast`): panels, those significant
    after FDR, and those pointing the valence-consistent way (g < 0 under positive prompts, g > 0 under negative)."""
    require_columns(tests, ["valence", "hedges_g", "reject"])
    pos, neg = tests[tests["valence"] == "positive"], tests[tests["valence"] == "negative"]
    return {"n_panels": int(len(tests)), "n_significant_fdr": int(tests["reject"].sum()),
            "valence_consistent": int((pos["hedges_g"] < 0).sum() + (neg["hedges_g"] > 0).sum())}


def family_panel(tests: pd.DataFrame, scores: pd.DataFrame, family: str, valence: str = "positive") -> dict | None:
    """The one contrast row of the pseudo-model whose ``family`` label (in ``scores``) is ``family``, under
    ``valence`` prompts: model, g with its CI, FDR p and verdict; None unless exactly one row matches."""
    family_of = scores.drop_duplicates("model").set_index("model")["family"]
    row = tests[(tests["model"].map(family_of) == family) & (tests["valence"] == valence)]
    return row.iloc[0][["model", "hedges_g", "g_ci_low", "g_ci_high", "p_fdr", "reject"]].to_dict() if len(row) == 1 else None


def top_answers_list(top: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """One row per model of :func:`published_top_answers`: its first ``n`` answers joined by commas."""
    return (top.groupby("model")["item"].agg(lambda s: ", ".join(s.head(n)))
            .rename(f"top {n} answers (published RM)").to_frame())


def lexicon_implicit_rewards(lms: Sequence[str], dictionary: str, words_per_category: int | None, seed: int,
                             prompt_keys: Sequence[str], mwlr_pairs, dpo_pairs=(), dtype=None
                             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A lexicon sample scored as whole answers by every LM (summed token log-probs), and the implicit rewards built
    from them: MWLR for each of ``mwlr_pairs`` and, when given, DPO log-ratios for ``dpo_pairs`` (instruct, base),
    scored with their LM heads. Returns (LM scores, implicit-reward scores)."""
    words = vp.sample_lexicon(value_lexicon(dictionary), words_per_category, seed)
    scores = vp.compute_value_scores(lms, dictionary, prompt_keys=prompt_keys, words=words,
                                     load=rm_models.LoadOptions(dtype=dtype))
    parts = [implicit_reward_scores(scores, [tuple(p) for p in mwlr_pairs], kind="mwlr")]
    if dpo_pairs:
        dpo_scores = vp.compute_value_scores(sorted({m for p in dpo_pairs for m in p}), dictionary,
                                             prompt_keys=prompt_keys, words=words,
                                             load=rm_models.LoadOptions(dtype=dtype, head="lm"))
        parts.append(implicit_reward_scores(dpo_scores, [tuple(p) for p in dpo_pairs], kind="dpo"))
    return scores, pd.concat(parts, ignore_index=True)
