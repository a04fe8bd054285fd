"""Chapter plumbing for framing, mere exposure and identity terms: RM scores joined with word-level lexicons.

Two levels, always labelled by a ``level`` column:

* ``word``  — published scores of the 10 paper RMs for whole dictionary words (Big Two nouns + MFD2 terms, 54
  prompts) and EloEverything items (3 prompts), from :mod:`rmlib.data`;
* ``token`` — compute-mode full-vocabulary sweeps (:func:`rmlib.compute.token_rewards`), mapped to words with the
  data layer's rules (:func:`rmlib.data.match_words_to_tokens`, :func:`rmlib.data.normalise_token`).

The statistics are :mod:`rmlib.regression` and :mod:`rmlib.stats`; what is here joins tables, standardises scores
and fits the one model those modules lack (the framing contrast, which needs four slopes in one fit).
"""
from __future__ import annotations

import functools
import re
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
import statsmodels.api as sm

from rmlib.stats import require_columns

__all__ = [
    "AFFECT_SOURCES", "FREQUENCY_SOURCES", "PEJORATIVE_IN_SOME_USES", "NOUN_FORMS", "DIXON_AXES", "AMBIGUOUS_ITEMS",
    "affect_table", "word_affect", "valence_extremeness", "frequency_table", "prompt_table", "published_word_scores",
    "dictionary_word_counts",
    "published_elo_scores", "compute_token_scores", "reference_lm", "tokens_to_words", "standardise",
    "framing_frame", "framing_cell_slopes", "framing_contrast", "ci_verdict", "FRAMING_HALVES", "framing_halves",
    "framing_halves_summary", "framing_word_influence", "influential_words", "framing_cell_counts", "swarm_offsets",
    "framing_slopes_long", "framing_slopes_chart", "word_swarm_chart",
    "exposure_frame", "token_exposure_frame", "attach_reference_logprob", "pooled_frequency_slopes",
    "FREQUENCY_LABELS", "exposure_cells", "exposure_shares", "exposure_by_group",
    "cell_strip_chart",
    "identity_terms", "match_identity_items", "identity_elo_ranks", "identity_word_ranks", "token_word_scores",
    "percentile_ranks", "mean_with_ci",
]

AFFECT_SOURCES = ("afinn", "vader", "warriner")
FREQUENCY_SOURCES = ("bnc", "bnc_lemma", "wordfreq")  # = rmlib.data.frequency.FREQUENCY_SOURCES (a test checks)
WORDLIKE = re.compile(r"^[a-z][a-z'-]*$")
RM_SCORE = "RM score"  # = rmlib.compute.RM_SCORE (a test checks), without importing torch for published mode


# --------------------------------------------------------------------------- lexicons

@functools.lru_cache(maxsize=None)
def _affect(source: str) -> pd.DataFrame:
    from rmlib.data import load_afinn, load_vader, load_warriner

    if source == "afinn":
        df = load_afinn("165").rename(columns={"score": "valence"})
    elif source == "vader":
        df = load_vader()[["word", "valence"]]
    elif source == "warriner":
        df = load_warriner()[["word", "valence"]]
        df = df.assign(valence=df["valence"] - 5.0)  # 1..9 scale, 5 = neutral
    else:
        raise ValueError(f"affect source must be one of {AFFECT_SOURCES}, not {source!r}")
    df = df.assign(word=df["word"].astype(str).str.lower().str.strip())
    return df.groupby("word", as_index=False)["valence"].mean()


def affect_table(source: str = "afinn") -> pd.DataFrame:
    """word (lowercase), valence centred on 0 (AFINN -5..5; VADER -4..4; Warriner 1..9 minus 5).

    AFINN is what the FAccT paper used; VADER and Warriner are the robustness checks. Words listed twice after
    lowercasing get their mean.
    """
    return _affect(source).copy()


def word_affect(words: Iterable[str], source: str = "afinn", missing: str = "nan") -> pd.Series:
    """Valence of each word (case-insensitive), indexed like ``words``.

    ``missing='zero'`` gives unlisted words 0, which is how AFINN scoring treats them (AFINN lists only
    sentiment-bearing words); ``'nan'`` leaves them missing (right for norms such as Warriner, which rate all kinds
    of words, so absence says nothing about affect).
    """
    if missing not in ("nan", "zero"):
        raise ValueError(f"missing must be 'nan' or 'zero', not {missing!r}")
    words = pd.Series(list(words), dtype=object)
    lut = _affect(source).set_index("word")["valence"]
    out = words.str.lower().str.strip().map(lut)
    return out.fillna(0.0) if missing == "zero" else out


def valence_extremeness(words: Iterable[str], sources: Sequence[str] = AFFECT_SOURCES) -> pd.DataFrame:
    """How extreme each word's valence is within each lexicon: word, then per source ``<source>`` (the valence,
    NaN if unrated) and ``<source>_extreme`` (the share of that lexicon's words of the same sign that are *more*
    extreme: 0 = at the very end of the scale, 0.5 = a middling value).

    Lexicons use different scales, so a word's raw valence cannot be compared across them; its place within each
    lexicon's own range can.
    """
    words = list(dict.fromkeys(words))
    out = pd.DataFrame({"word": words})
    for src in sources:
        table = affect_table(src)
        v = word_affect(words, src, missing="nan").to_numpy(float)
        pos, neg = np.sort(table["valence"][table["valence"] > 0]), np.sort(table["valence"][table["valence"] < 0])
        ext = np.full(len(words), np.nan)
        for i, x in enumerate(v):
            if x > 0:
                ext[i] = (pos.size - np.searchsorted(pos, x, side="right")) / pos.size
            elif x < 0:
                ext[i] = np.searchsorted(neg, x, side="left") / neg.size
        out[src] = v
        out[f"{src}_extreme"] = ext
    return out


def frequency_table(words: Iterable[str], sources: Sequence[str] = FREQUENCY_SOURCES) -> pd.DataFrame:
    """word, then per source ``freq_<source>`` (per million) and ``zipf_<source>`` (log10 per million + 3).

    Zipf is NaN where the source has no count (a log of 0 is undefined): those words drop out of a regression
    instead of sitting at an arbitrary floor.
    """
    words = list(dict.fromkeys(words))
    out = pd.DataFrame({"word": words})
    for s in sources:
        if s not in FREQUENCY_SOURCES:
            raise ValueError(f"frequency source must be one of {FREQUENCY_SOURCES}, not {s!r}")
        f = np.array([_freq(str(w), s) for w in words], dtype=float)
        out[f"freq_{s}"] = f
        with np.errstate(divide="ignore"):
            out[f"zipf_{s}"] = np.where(f > 0, np.log10(np.where(f > 0, f, 1.0)) + 3.0, np.nan)
    return out


@functools.lru_cache(maxsize=500_000)
def _freq(word: str, source: str) -> float:
    """Cached: a vocabulary sweep asks for the same normalised words under every prompt."""
    from rmlib.data import word_frequency

    return word_frequency(word, source)


# --------------------------------------------------------------------------- scores

def prompt_table(keys: Sequence[str]) -> pd.DataFrame:
    """prompt_key, prompt, prompt_valence for keys of the optimal/pessimal set ('greatest', 'best', 'worst') or of
    the 54-prompt design ('good_world_please', ...)."""
    from rmlib.data import load_prompts

    known = pd.concat([load_prompts("optimal_pessimal")[["prompt_key", "prompt", "valence"]],
                       load_prompts("factorial54")[["prompt_key", "prompt", "valence"]]], ignore_index=True)
    known = known.drop_duplicates("prompt_key").set_index("prompt_key")
    keys = list(keys)
    bad = [k for k in keys if k not in known.index]
    if bad or not keys:
        raise ValueError(f"unknown prompt keys {bad or keys}; use 'greatest', 'best', 'worst' or a 54-prompt key "
                         f"such as {list(known.index[3:6])}")
    out = known.loc[keys].reset_index().rename(columns={"valence": "prompt_valence"})
    return out


def _check_models(models, available, what):
    if models is None:
        return list(available)
    models = list(models)
    unknown = [m for m in models if m not in set(available)]
    if unknown or not models:
        raise ValueError(f"models {unknown or models} are not among the {what}: {list(available)}")
    return models


def published_word_scores(models: Sequence[str] | None = None, prompt_keys: Sequence[str] | None = None
                          ) -> pd.DataFrame:
    """The paper RMs' scores for the dictionary words (Big Two nouns + MFD2 terms) under the 54 prompts.

    Columns: level ('word'), model, nickname, reward_kind ('RM score'), prompt_key, prompt, prompt_valence, word,
    dictionary ('big2', 'mfd2' or 'both'), score. Words in both dictionaries were scored in two runs whose scores
    differ slightly; they get the mean of the two and dictionary 'both'. (How many words each group holds is
    computed where it is shown: see :func:`dictionary_word_counts`.)
    """
    from rmlib.data import load_dictionary_scores

    cols = ["model", "nickname", "prompt_key", "prompt", "valence", "word", "score"]
    b = load_dictionary_scores("big2")[cols].assign(dictionary="big2")
    m = load_dictionary_scores("mfd2")[cols].assign(dictionary="mfd2")
    models = _check_models(models, b["model"].unique(), "paper RMs")
    if prompt_keys is not None:
        bad = sorted(set(prompt_keys) - set(b["prompt_key"]))
        if bad:
            raise ValueError(f"prompt keys {bad} are not among the 54 prompts, "
                             f"e.g. {sorted(b['prompt_key'].unique())[:4]}")
    keys = ["model", "prompt_key", "word"]
    shared = set(b["word"].unique()) & set(m["word"].unique())
    twice = b[b["word"].isin(shared)].merge(m.loc[m["word"].isin(shared), keys + ["score"]], on=keys,
                                           suffixes=("", "_mfd2"), validate="one_to_one")
    twice = twice.assign(score=(twice["score"] + twice.pop("score_mfd2")) / 2, dictionary="both")
    out = pd.concat([b[~b["word"].isin(shared)], twice, m[~m["word"].isin(shared)]], ignore_index=True)
    out = out[out["model"].isin(models)]
    if prompt_keys is not None:
        out = out[out["prompt_key"].isin(list(prompt_keys))]
    out = out.rename(columns={"valence": "prompt_valence"})
    out.insert(0, "level", "word")
    out.insert(3, "reward_kind", RM_SCORE)
    return out[["level", "model", "nickname", "reward_kind", "prompt_key", "prompt", "prompt_valence", "word",
                "dictionary", "score"]].reset_index(drop=True)


def dictionary_word_counts(scores: pd.DataFrame) -> dict:
    """Distinct words per dictionary group in :func:`published_word_scores` output: {'big2': n, 'mfd2': n,
    'both': n, 'total': n} ('big2'/'mfd2' count the words found in that dictionary only)."""
    require_columns(scores, ["word", "dictionary"])
    per = scores.drop_duplicates("word")["dictionary"].value_counts()
    return {k: int(per.get(k, 0)) for k in ("big2", "mfd2", "both")} | {"total": int(scores["word"].nunique())}


def published_elo_scores(models: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper RMs' scores for the EloEverything items under 3 prompts, with the human Elo ratings.

    Columns: level ('word': items are whole answers, often several words), model, nickname, reward_kind, prompt_key,
    prompt, item, score, elo_score, elo_rank, elo_matches.
    """
    from rmlib.data import load_elo
    from rmlib.models import paper_rms

    long = load_elo("long")
    models = _check_models(models, long["model"].unique(), "paper RMs")
    out = long[long["model"].isin(models)].assign(level="word", reward_kind=RM_SCORE)
    out = out.merge(paper_rms().rename(columns={"id": "model"})[["model", "nickname"]], on="model", how="left")
    return out[["level", "model", "nickname", "reward_kind", "prompt_key", "prompt", "item", "score", "elo_score",
                "elo_rank",
                "elo_matches"]].reset_index(drop=True)


def compute_token_scores(models: Sequence[str], prompt_keys: Sequence[str], tokens=None,
                         progress: bool = False) -> pd.DataFrame:
    """Full-vocabulary sweeps (cached by rmlib.compute) of each model under each prompt.

    Columns: level ('token'), model, reward_kind, prompt_key, prompt, prompt_valence, token_id, token, text,
    score (the reward: an RM's score, or an LM's log-prob = implicit reward; see reward_kind).
    Special tokens are dropped: they are not answers.
    """
    from rmlib.compute import token_rewards

    if not models:
        raise ValueError("models is empty: give model ids, e.g. ['smollm2-135m-instruct'] or ['local:<name>']")
    prompts = prompt_table(prompt_keys)
    frames = []
    for m in models:
        for p in prompts.itertuples():
            df = token_rewards(m, p.prompt, tokens=tokens, progress=progress)
            df = df[~df["is_special"]]
            frames.append(pd.DataFrame({
                "level": "token", "model": m, "reward_kind": df["reward_kind"].to_numpy(),
                "prompt_key": p.prompt_key, "prompt": p.prompt, "prompt_valence": p.prompt_valence,
                "token_id": df["token_id"].to_numpy(), "token": df["token"].to_numpy(), "text": df["text"].to_numpy(),
                "score": df["reward"].to_numpy(float)}))
    return pd.concat(frames, ignore_index=True)


def reference_lm(model_id: str) -> str | None:
    """The LM whose log-probs the KL regulariser keeps a policy near: the model itself for an LM (its reward *is*
    that log-prob), the recorded base model for an RM trained by rmlib, None when unknown (e.g. a hub RM)."""
    from rmlib.models import get_spec

    spec = get_spec(model_id)
    if spec.kind == "lm":
        return model_id
    base = spec.extra.get("base_model") if spec.extra else None
    if base:
        try:
            if get_spec(base).kind == "lm":
                return base
        except ValueError:
            return None
    return None


def tokens_to_words(token_scores: pd.DataFrame, words: Iterable[str], tokenizer_for=None) -> pd.DataFrame:
    """Map token-level scores to words with :func:`rmlib.data.match_words_to_tokens` (a token matches a word when
    its text, less one leading space, spells the word in any of its case variants).

    Returns one row per model x prompt x word: level ('token'), model, reward_kind, prompt_key, prompt,
    prompt_valence, word, score (mean over the word's single-token variants), score_min, score_max, n_variants.
    Words without a single token are absent (see ``coverage`` in the attrs: model -> share of words matched).
    ``tokenizer_for(model_id)`` defaults to the loaded model's tokenizer.
    """
    from rmlib.data import match_words_to_tokens
    from rmlib.data.tokens import decoded_vocabulary

    require_columns(token_scores, ["model", "prompt_key", "token_id", "score"], "token_scores")
    if tokenizer_for is None:
        from rmlib.compute import model_for

        def tokenizer_for(mid):
            return model_for(mid).tokenizer
    words = list(dict.fromkeys(str(w).strip() for w in words if str(w).strip()))
    frames, coverage = [], {}
    for m, g in token_scores.groupby("model", sort=False):
        tok = tokenizer_for(m)
        match = match_words_to_tokens(tok, words, vocabulary=decoded_vocabulary(tok))
        coverage[m] = match.coverage["coverage"]
        pairs = match.matches[["word", "token_id"]]
        j = g.merge(pairs, on="token_id", how="inner")
        keys = ["level", "model", "reward_kind", "prompt_key", "prompt", "prompt_valence", "word"]
        keys = [k for k in keys if k in j.columns]
        frames.append(j.groupby(keys, as_index=False, sort=False).agg(
            score=("score", "mean"), score_min=("score", "min"), score_max=("score", "max"),
            n_variants=("token_id", "nunique")))
    out = pd.concat(frames, ignore_index=True)
    out.attrs["coverage"] = coverage
    return out


def standardise(df: pd.DataFrame, value: str = "score", by: Sequence[str] = ("model", "prompt_key"),
                method: str = "z") -> pd.Series:
    """Scores made comparable across RMs and prompts: a z-score (``'z'``) or a percentile rank 0..100 (``'rank'``,
    100 = highest) within each group. RMs' scales are arbitrary, so slopes are read in these units."""
    require_columns(df, [value, *by])
    g = df.groupby(list(by), sort=False)[value]
    if method == "z":
        sd = g.transform("std")
        if (sd == 0).any():
            raise ValueError(f"{value!r} is constant within some {list(by)} group; cannot standardise")
        return (df[value] - g.transform("mean")) / sd
    if method == "rank":
        return (g.rank(pct=True, method="average") * 100.0).rename(value)
    raise ValueError(f"method must be 'z' or 'rank', not {method!r}")


# --------------------------------------------------------------------------- framing

def framing_frame(scores: pd.DataFrame, source: str = "afinn", response: str = "z") -> pd.DataFrame:
    """Words with a nonzero valence in ``source``, with the columns the framing analysis needs.

    Adds valence, word_side ('positive'|'negative' valence), y (score standardised within model x prompt over these
    words), oriented_y (y under positive prompts, -y under negative ones, so that 'agrees with the prompt' is up in
    both), congruent (the word's valence matches the prompt's).
    """
    require_columns(scores, ["model", "prompt_key", "prompt_valence", "word", "score"], "scores")
    bad = set(scores["prompt_valence"].unique()) - {"positive", "negative"}
    if bad:
        raise ValueError(f"prompt_valence must be 'positive' or 'negative'; got {sorted(bad)}")
    v = word_affect(scores["word"], source, missing="nan").to_numpy()
    df = scores.assign(valence=v)
    df = df[df["valence"].notna() & (df["valence"] != 0)].copy()
    if df.empty:
        raise ValueError(f"no scored word has a nonzero {source} valence; check the word column")
    df["word_side"] = np.where(df["valence"] > 0, "positive", "negative")
    df["y"] = standardise(df, "score", ("model", "prompt_key"), response)
    sign = np.where(df["prompt_valence"] == "positive", 1.0, -1.0)
    df["oriented_y"] = df["y"] * sign
    df["congruent"] = df["word_side"] == df["prompt_valence"]
    df["affect_source"] = source
    return df.reset_index(drop=True)


def framing_cell_slopes(ff: pd.DataFrame, min_n: int = 10) -> pd.DataFrame:
    """Slope of oriented_y on valence for each model x prompt x word side (rmlib.regression.cell_slopes, HC3 CIs).

    A positive oriented slope means the RM follows the prompt: higher valence pays under positive prompts, lower
    valence under negative ones. Cells with fewer than ``min_n`` words are skipped.
    """
    from rmlib.regression import cell_slopes

    groups = ["model", "prompt_key", "prompt_valence", "word_side"]
    require_columns(ff, [*groups, "valence", "oriented_y"], "ff (from framing_frame)")
    sizes = ff.groupby(groups, observed=True)["valence"].agg(["size", "nunique"])
    keep = sizes[(sizes["size"] >= min_n) & (sizes["nunique"] >= 2)].index
    if len(keep) == 0:
        raise ValueError(f"no model x prompt x word-side cell has {min_n} words with varying valence")
    data = ff.set_index(groups).loc[keep].reset_index()
    return cell_slopes(data, y="oriented_y", x="valence", groups=groups, min_n=min_n)


def framing_cell_counts(cells: pd.DataFrame, label: str = "model") -> pd.DataFrame:
    """Prompt by prompt, which word side has the steeper oriented slope, from :func:`framing_cell_slopes`.

    Returns one row per model x prompt: label, prompt_key, prompt_valence, half ('pos_prompts'|'neg_prompts'),
    positive, negative (the two slopes), congruent_minus_incongruent (the slope of the words that share the
    prompt's valence minus the other: > 0 is the claimed direction), congruent_steeper (bool).
    """
    require_columns(cells, [label, "prompt_key", "prompt_valence", "word_side", "slope"], "cells")
    wide = cells.pivot_table(index=[label, "prompt_key", "prompt_valence"], columns="word_side", values="slope")
    wide = wide.dropna(subset=[c for c in ("positive", "negative") if c in wide.columns]).reset_index()
    if not {"positive", "negative"} <= set(wide.columns):
        raise ValueError("cells need slopes for both word sides")
    pos = wide["prompt_valence"] == "positive"
    wide["half"] = np.where(pos, "pos_prompts", "neg_prompts")
    wide["congruent_minus_incongruent"] = np.where(pos, wide["positive"] - wide["negative"],
                                                   wide["negative"] - wide["positive"])
    wide["congruent_steeper"] = wide["congruent_minus_incongruent"] > 0
    wide.columns.name = None
    return wide[[label, "prompt_key", "prompt_valence", "half", "positive", "negative",
                 "congruent_minus_incongruent", "congruent_steeper"]]


def framing_contrast(ff: pd.DataFrame, groups: Sequence[str] = ("model",), cluster: str | None = "word",
                     alpha: float = 0.05) -> pd.DataFrame:
    """The framing claim's two halves, and their pooled contrast, from four slopes per group.

    Fits ``oriented_y ~ C(prompt_key):C(word_side) + valence:C(cell)`` (cell = prompt valence x word side; an
    intercept per prompt and side, one valence slope per cell; statsmodels OLS after demeaning) with standard errors
    clustered by word, since every word recurs under every prompt. With s(words, prompts) the oriented slopes:

    * ``pos_prompts`` = s(+, +) - s(-, +): under positive prompts the RM is more sensitive to positive words (the
      first half of the claim);
    * ``neg_prompts`` = s(-, -) - s(+, -): under negative prompts it is more sensitive to negative words (the
      second half);
    * ``framing``     = their mean (= the mean of pos_words and neg_words): the pooled asymmetry. It is only a
      secondary number: halves of opposite sign cancel in it, so a value near 0 does not mean "no effect";
    * ``pos_words``   = s(+, +) - s(+, -) and ``neg_words`` = s(-, -) - s(-, +): the same words across prompts;
    * ``positivity``  = mean over prompts of s(+, .) - s(-, .) = (pos_prompts - neg_prompts) / 2: a fixed tilt toward
      positive words whatever the prompt. Halves of opposite sign are exactly this tilt.

    Returns *groups, the four slopes s_pp, s_pn, s_np, s_nn (first letter: word side, second: prompt valence) with
    _ci_low/_ci_high, then each contrast with _ci_low, _ci_high and _p; n rows, n_words.
    """
    groups = list(groups)
    require_columns(ff, [*groups, "prompt_key", "prompt_valence", "word_side", "valence", "oriented_y",
                         *([cluster] if cluster else [])], "ff (from framing_frame)")
    cells = {("positive", "positive"): "s_pp", ("positive", "negative"): "s_pn",
             ("negative", "positive"): "s_np", ("negative", "negative"): "s_nn"}
    contrasts = {"pos_prompts": {"s_pp": 1, "s_np": -1}, "neg_prompts": {"s_nn": 1, "s_pn": -1},
                 "pos_words": {"s_pp": 1, "s_pn": -1}, "neg_words": {"s_nn": 1, "s_np": -1},
                 "framing": {"s_pp": .5, "s_pn": -.5, "s_nn": .5, "s_np": -.5},
                 "positivity": {"s_pp": .5, "s_pn": .5, "s_np": -.5, "s_nn": -.5}}
    rows = []
    for key, g in (ff.groupby(groups, sort=False) if groups else [((), ff)]):
        key = key if isinstance(key, tuple) else (key,)
        g = g.assign(cell=[cells[(s, p)] for s, p in zip(g["word_side"], g["prompt_valence"])])
        counts = g.groupby("cell")["valence"].nunique()
        missing = [c for c in cells.values() if counts.get(c, 0) < 2]
        if missing:
            raise ValueError(f"group {dict(zip(groups, key))}: cells {missing} lack words with varying valence; "
                             "the framing contrast needs positive and negative prompts and words of both signs")
        kw = {"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(g[cluster])[0]}} if cluster else \
            {"cov_type": "HC3"}
        # Frisch-Waugh-Lovell: sweeping out the prompt x side intercepts by demeaning gives the same slopes and
        # (up to the small-sample factor) the same clustered errors as fitting ~100 dummies, in a fraction of the time.
        within = g.groupby(["prompt_key", "word_side"], sort=False)
        design = pd.DataFrame({c: np.where(g["cell"] == c, g["valence"], 0.0) for c in cells.values()}, index=g.index)
        design = design - design.groupby([g["prompt_key"], g["word_side"]]).transform("mean")
        yy = g["oriented_y"] - within["oriented_y"].transform("mean")
        res = sm.OLS(yy.to_numpy(), design, hasconst=False).fit(**kw)
        names = list(res.params.index)
        idx = {c: names.index(c) for c in cells.values()}
        row = dict(zip(groups, key))
        ci = res.conf_int(alpha)
        for c, i in idx.items():
            row.update({c: float(res.params.iloc[i]), f"{c}_ci_low": float(ci.iloc[i, 0]),
                        f"{c}_ci_high": float(ci.iloc[i, 1])})
        for name, weights in contrasts.items():
            vec = np.zeros(len(names))
            for c, w in weights.items():
                vec[idx[c]] = w
            t = res.t_test(vec)
            lo, hi = np.asarray(t.conf_int(alpha)).ravel()
            row.update({name: float(np.squeeze(t.effect)), f"{name}_ci_low": float(lo), f"{name}_ci_high": float(hi),
                        f"{name}_p": float(np.squeeze(t.pvalue))})
        row.update(n=int(res.nobs), n_words=int(g["word"].nunique()) if "word" in g else None)
        rows.append(row)
    return pd.DataFrame(rows)


def ci_verdict(df: pd.DataFrame, estimate: str, label: str = "model", lo: str | None = None,
               hi: str | None = None) -> dict[str, list[str]]:
    """Which rows have a CI wholly above zero, wholly below, or including zero: {'above': [...], 'below': [...],
    'zero': [...]} of ``label`` values (CI columns default to <estimate>_ci_low/_ci_high)."""
    lo, hi = lo or f"{estimate}_ci_low", hi or f"{estimate}_ci_high"
    require_columns(df, [label, estimate, lo, hi])
    return {"above": df.loc[df[lo] > 0, label].tolist(), "below": df.loc[df[hi] < 0, label].tolist(),
            "zero": df.loc[(df[lo] <= 0) & (df[hi] >= 0), label].tolist()}


FRAMING_HALVES = {"pos_prompts": "positive prompts: more sensitive to positive words",
                  "neg_prompts": "negative prompts: more sensitive to negative words"}


def framing_halves(contrast: pd.DataFrame, label: str = "model") -> pd.DataFrame:
    """Each model's verdict on the two halves of the framing claim, from :func:`framing_contrast`.

    Per row: pos_half / neg_half = 'holds' (95% CI above 0), 'reversed' (CI below 0) or 'unclear' (CI spans 0), and
    ``pattern``: 'both halves'; 'opposite signs' when one half holds and the other is reversed (a fixed tilt toward
    one kind of word, which the pooled contrast averages away); '<positive|negative>-prompt half only' (the other
    unclear); 'both reversed'; '<...>-prompt half reversed, the other unclear'; or 'neither (both unclear)'.
    """
    require_columns(contrast, [label, *(f"{h}{c}" for h in FRAMING_HALVES for c in ("", "_ci_low", "_ci_high"))])

    def state(lo, hi):
        return np.where(lo > 0, "holds", np.where(hi < 0, "reversed", "unclear"))

    pos = state(contrast["pos_prompts_ci_low"].to_numpy(), contrast["pos_prompts_ci_high"].to_numpy())
    neg = state(contrast["neg_prompts_ci_low"].to_numpy(), contrast["neg_prompts_ci_high"].to_numpy())
    pattern = np.select(
        [(pos == "holds") & (neg == "holds"), (pos == "holds") & (neg == "reversed"),
         (pos == "reversed") & (neg == "holds"), pos == "holds", neg == "holds",
         (pos == "reversed") & (neg == "reversed"), pos == "reversed", neg == "reversed"],
        ["both halves", "opposite signs", "opposite signs", "positive-prompt half only",
         "negative-prompt half only", "both reversed", "positive-prompt half reversed, the other unclear",
         "negative-prompt half reversed, the other unclear"], "neither (both unclear)")
    return pd.DataFrame({label: contrast[label].to_numpy(), "pos_half": pos, "neg_half": neg, "pattern": pattern,
                         "pos_prompts": contrast["pos_prompts"].to_numpy(),
                         "neg_prompts": contrast["neg_prompts"].to_numpy(),
                         "framing": contrast["framing"].to_numpy()})


def framing_halves_summary(halves: pd.DataFrame) -> dict:
    """Counts over models for :func:`framing_halves`: {pos_prompts: {holds, reversed, unclear, n}, neg_prompts:
    {...}, patterns: {pattern: count}, n}."""
    require_columns(halves, ["pos_half", "neg_half", "pattern"])
    out = {}
    for half, col in (("pos_prompts", "pos_half"), ("neg_prompts", "neg_half")):
        vc = halves[col].value_counts()
        out[half] = {k: int(vc.get(k, 0)) for k in ("holds", "reversed", "unclear")} | {"n": int(len(halves))}
    out["patterns"] = {k: int(v) for k, v in halves["pattern"].value_counts().items()}
    out["n"] = int(len(halves))
    return out


def framing_word_influence(ff: pd.DataFrame, groups: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Each word's share of the two framing halves: which words make a half positive or negative.

    In :func:`framing_contrast` each cell's slope is sum(x~ y~) / sum(x~^2) over that cell's rows, with valence and
    oriented score demeaned within prompt x word side (Frisch-Waugh-Lovell). A word's contribution to a slope is
    its own terms of that sum, so the contributions add up exactly to the slope, and to each half:
    pos_prompts = s(+,+) - s(-,+) gets +contribution from positive words and -contribution from negative words
    under positive prompts; neg_prompts = s(-,-) - s(+,-) the reverse under negative prompts.

    Returns *groups, half ('pos_prompts'|'neg_prompts'), word, word_side, valence, contribution, mean_y (the mean
    standardised reward of the word under that half's prompts: high = the RM's favoured answers to those prompts).
    """
    groups = list(groups)
    require_columns(ff, [*groups, "prompt_key", "prompt_valence", "word", "word_side", "valence", "oriented_y", "y"],
                    "ff (from framing_frame)")
    d = ff[[*groups, "prompt_key", "prompt_valence", "word", "word_side", "valence", "oriented_y", "y"]].copy()
    within = [*groups, "prompt_key", "word_side"]
    d["xt"] = d["valence"] - d.groupby(within)["valence"].transform("mean")
    d["yt"] = d["oriented_y"] - d.groupby(within)["oriented_y"].transform("mean")
    cell = [*groups, "prompt_valence", "word_side"]
    d["term"] = d["xt"] * d["yt"] / d.groupby(cell)["xt"].transform(lambda v: (v ** 2).sum())
    congruent = d["word_side"] == d["prompt_valence"]
    d["contribution"] = np.where(congruent, d["term"], -d["term"])
    d["half"] = np.where(d["prompt_valence"] == "positive", "pos_prompts", "neg_prompts")
    out = d.groupby([*groups, "half", "word", "word_side"], as_index=False, sort=False).agg(
        valence=("valence", "first"), contribution=("contribution", "sum"), mean_y=("y", "mean"))
    return out


def influential_words(influence: pd.DataFrame, n: int = 8, groups: Sequence[str] = ("model",)) -> pd.DataFrame:
    """The n words that pull each half down most and the n that push it up most, averaged over ``groups``.

    ``influence`` is :func:`framing_word_influence`. Returns half, direction ('pulls down'|'pushes up'), rank, word,
    word_side, valence, contribution (mean over groups: summed over all words it gives the mean half), mean_y.
    """
    require_columns(influence, ["half", "word", "word_side", "valence", "contribution", "mean_y", *groups])
    n_groups = influence[list(groups)].drop_duplicates().shape[0] if groups else 1
    avg = influence.groupby(["half", "word", "word_side"], as_index=False).agg(
        valence=("valence", "first"), contribution=("contribution", "sum"), mean_y=("mean_y", "mean"))
    avg["contribution"] = avg["contribution"] / n_groups
    parts = []
    for half, g in avg.groupby("half", sort=False):
        down = g.nsmallest(n, "contribution").assign(direction="pulls down")
        up = g.nlargest(n, "contribution").assign(direction="pushes up")
        for part in (down, up):
            parts.append(part.assign(rank=np.arange(1, len(part) + 1)))
    cols = ["half", "direction", "rank", "word", "word_side", "valence", "contribution", "mean_y"]
    return pd.concat(parts, ignore_index=True)[cols]


def swarm_offsets(df: pd.DataFrame, x: str, y: str, by: Sequence[str] = (), bins: int = 40,
                  step: float = 0.06) -> np.ndarray:
    """Horizontal offsets that spread points sharing an x value into a beeswarm (deterministic, no overlap search).

    Within each x value (and ``by`` group), y is cut into ``bins`` bins; the k-th point of a bin goes to
    0, +step, -step, +2 step, ... so dense regions widen, as in a beeswarm plot.
    """
    require_columns(df, [x, y, *by])
    yy = df[y].to_numpy(float)
    lo, hi = np.nanmin(yy), np.nanmax(yy)
    b = np.floor((yy - lo) / ((hi - lo) or 1.0) * (bins - 1e-9)).astype(int)
    key = df[list(by) + [x]].astype(str).agg("|".join, axis=1) + "|" + pd.Series(b, index=df.index).astype(str)
    k = key.groupby(key).cumcount().to_numpy()
    return np.where(k % 2 == 1, 1, -1) * np.ceil(k / 2) * step


# --------------------------------------------------------------------------- mere exposure

def exposure_frame(scores: pd.DataFrame, valence_source: str = "afinn", response: str = "z",
                   item: str = "word") -> pd.DataFrame:
    """Scores joined with both frequency sources and a valence covariate, for ``y ~ zipf + valence`` per cell.

    Adds valence (AFINN with unlisted words as 0, as AFINN scoring does; other sources leave them missing),
    zipf_bnc, zipf_wordfreq, and y (score standardised within model x prompt). Rows keep NaN where a source has no
    frequency; drop per source before regressing.
    """
    require_columns(scores, ["model", "prompt_key", item, "score"], "scores")
    words = scores[item].astype(str)
    freq = frequency_table(words.str.lower().unique())
    df = scores.assign(_w=words.str.lower())
    df = df.merge(freq.rename(columns={"word": "_w"}), on="_w", how="left").drop(columns="_w")
    df["valence"] = word_affect(df[item], valence_source, missing="zero" if valence_source == "afinn" else "nan")\
        .to_numpy()
    df["y"] = standardise(df, "score", ("model", "prompt_key"), response)
    return df


def token_exposure_frame(token_scores: pd.DataFrame, valence_source: str = "afinn",
                         response: str = "z") -> pd.DataFrame:
    """Token-level rows for the mere-exposure regression: every swept token whose text (after
    :func:`rmlib.data.normalise_token`) is word-like (letters, apostrophes, hyphens), with ``word`` = that form.

    Several tokens can share a word (' love', 'love', 'Love'); they stay separate rows, and the shuffled baseline
    shuffles frequencies by word so they move together.
    """
    from rmlib.data import normalise_token

    require_columns(token_scores, ["model", "prompt_key", "text", "score"], "token_scores")
    word = token_scores["text"].map(normalise_token)
    keep = word.str.match(WORDLIKE)
    df = token_scores[keep].assign(word=word[keep])
    if df.empty:
        raise ValueError("no swept token is word-like; sweep more of the vocabulary")
    return exposure_frame(df, valence_source=valence_source, response=response, item="word")


def attach_reference_logprob(token_scores: pd.DataFrame, progress: bool = False) -> pd.DataFrame:
    """Add each token's log-prob under the model's reference LM (:func:`reference_lm`) under the same prompt.

    Adds reference_lm (None when unknown, e.g. a hub RM) and lm_logprob (NaN then). For an LM the reference is the
    model itself, so lm_logprob equals its reward. Token ids are joined as is: an RM trained by rmlib keeps its base
    model's tokenizer.
    """
    from rmlib.compute import token_rewards

    require_columns(token_scores, ["model", "prompt", "token_id", "score"], "token_scores")
    parts = []
    for m, g in token_scores.groupby("model", sort=False):
        ref = reference_lm(m)
        g = g.assign(reference_lm=ref, lm_logprob=np.nan)
        if ref is not None:
            for prompt, gp in g.groupby("prompt", sort=False):
                # the whole vocabulary: one LM forward pass, and the sweep the chapter already cached
                lp = token_rewards(ref, prompt, progress=progress)
                g.loc[gp.index, "lm_logprob"] = gp["token_id"].map(lp.set_index("token_id")["reward"]).to_numpy()
        parts.append(g)
    return pd.concat(parts)


FREQUENCY_LABELS = {"bnc": "BNC, exact word form", "bnc_lemma": "BNC, headword (lemma) totals",
                    "wordfreq": "wordfreq"}


def exposure_cells(df: pd.DataFrame, x: str, label: str = "label", covariate: str = "valence") -> pd.DataFrame:
    """One frequency slope per model x prompt cell (``y ~ x + covariate``, HC3; rmlib.regression.cell_slopes) over the
    rows that have both values, with each cell's prompt_valence."""
    from rmlib.regression import cell_slopes

    require_columns(df, [label, "prompt_key", "prompt_valence", "y", x, covariate])
    d = df.dropna(subset=[x, covariate])
    cells = cell_slopes(d, y="y", x=x, covariates=[covariate], groups=[label, "prompt_key"])
    return cells.merge(d.drop_duplicates("prompt_key")[["prompt_key", "prompt_valence"]], on="prompt_key")


def exposure_shares(df: pd.DataFrame, sources: Sequence[str], *, label: str = "label", n_perm: int = 200,
                    seed: int = 0, subsets: dict[str, pd.Series] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Share of model x prompt cells with a positive frequency slope, per frequency matching and prompt valence, each
    next to its shuffled-frequency baseline (rmlib.regression.shuffled_share_baseline, shuffled by word).

    ``sources`` are frequency_table sources (a ``zipf_<source>`` column each); ``subsets`` adds named row masks,
    e.g. {'wordfreq, BNC words only': mask} run with wordfreq frequencies. Returns (cells: every cell's slope with
    a ``source`` column; table: source, prompts ('positive'|'negative'|'all'), n_words, n_cells, n_positive, share,
    ci_low, ci_high, n_sig_positive, n_sig_negative, and for each valence null_mean, null_low, null_high,
    p_greater; the 'all' row has no baseline).
    """
    from rmlib.regression import compare_to_baseline, share_positive, shuffled_share_baseline

    variants = [(s, f"zipf_{s}", df) for s in sources]
    variants += [(name, "zipf_wordfreq", df[mask]) for name, mask in (subsets or {}).items()]
    all_cells, rows = [], []
    for name, x, d in variants:
        d = d.dropna(subset=[x, "valence"])
        cells = exposure_cells(d, x, label=label)
        all_cells.append(cells.assign(source=name))
        n_words = int(d["word"].nunique())
        for pv in ("positive", "negative", "all"):
            c = cells if pv == "all" else cells[cells["prompt_valence"] == pv]
            if c.empty:
                continue
            row = {"source": name, "prompts": pv, "n_words": n_words, **share_positive(c)}
            if pv != "all":
                null = shuffled_share_baseline(d[d["prompt_valence"] == pv], y="y", x=x, covariates=["valence"],
                                               groups=[label, "prompt_key"], item="word", n_perm=n_perm, seed=seed)
                base = compare_to_baseline(row["share"], null)
                row.update({k: base[k] for k in ("null_mean", "null_low", "null_high", "p_greater")})
            rows.append(row)
    return pd.concat(all_cells, ignore_index=True), pd.DataFrame(rows)


def exposure_by_group(df: pd.DataFrame, sources: Sequence[str], group: str, levels: dict[str, Sequence[str]], *,
                      label: str = "label") -> pd.DataFrame:
    """The share of positive frequency slopes refitted within subsets of words, e.g. per dictionary
    (``levels={'Big Two': ['big2', 'both'], 'MFD2': ['mfd2', 'both']}`` on column ``group``), per frequency matching
    and prompt valence. Wilson intervals only (no shuffled baseline). Returns source, <group>, prompts, n_words,
    n_cells, n_positive, share, ci_low, ci_high, n_sig_positive, n_sig_negative."""
    from rmlib.regression import share_positive

    require_columns(df, [group])
    rows = []
    for s in sources:
        for level, values in levels.items():
            d = df[df[group].isin(list(values))].dropna(subset=[f"zipf_{s}", "valence"])
            cells = exposure_cells(d, f"zipf_{s}", label=label)
            for pv, c in cells.groupby("prompt_valence"):
                rows.append({"source": s, group: level, "prompts": pv, "n_words": int(d["word"].nunique()),
                             **share_positive(c)})
    return pd.DataFrame(rows)


def pooled_frequency_slopes(df: pd.DataFrame, x: str, label: str = "model", valence: str = "valence",
                            alpha: float = 0.05) -> pd.DataFrame:
    """Per model, the slope of y on ``x`` under positive and under negative prompts, pooled over prompts, with
    standard errors clustered by word (rmlib.regression.slope_difference).

    The valence covariate is oriented (valence under positive prompts, -valence under negative ones), because an RM
    that follows the prompt rewards valence in opposite directions under the two kinds of prompt.
    Returns label, slope_negative, slope_positive (each with _ci_low/_ci_high), difference (positive - negative)
    with CI and p, n.
    """
    from rmlib.regression import slope_difference

    require_columns(df, [label, "prompt_valence", "word", "y", x, valence])
    d = df.dropna(subset=[x, valence])
    d = d.assign(_oriented_valence=np.where(d["prompt_valence"] == "positive", 1.0, -1.0) * d[valence])
    out = slope_difference(d, y="y", x=x, condition="prompt_valence", levels=("negative", "positive"),
                           covariates=["_oriented_valence"], groups=[label], cluster="word", alpha=alpha)
    ren = {"slope_a": "slope_negative", "slope_b": "slope_positive"}
    out = out.rename(columns={c: c.replace(k, v) for c in out.columns for k, v in ren.items() if c.startswith(k)})
    return out.drop(columns=["condition_a", "condition_b"])


def cell_strip_chart(cells: pd.DataFrame, label: str = "model", facet: str = "source", title: str = ""):
    """Every model x prompt cell's slope as a dot (jittered vertically), colour = prompt valence, one panel per
    ``facet``; a dashed line at 0."""
    import altair as alt

    require_columns(cells, [label, "prompt_key", "prompt_valence", "slope", facet])
    d = cells[[label, "prompt_key", "prompt_valence", "slope", facet]]
    colour = alt.Color("prompt_valence:N", title="prompt", scale=alt.Scale(domain=["positive", "negative"],
                                                                          range=["#4c78a8", "#e45756"]))
    dots = alt.Chart().mark_circle(size=28, opacity=0.6).encode(
        x=alt.X("slope:Q", title="slope of standardised score per Zipf unit"),
        y=alt.Y(f"{label}:N", title=None, axis=alt.Axis(labelLimit=260)), yOffset="jitter:Q", color=colour,
        tooltip=[f"{label}:N", "prompt_key:N", alt.Tooltip("slope:Q", format=".3f")],
    ).transform_calculate(jitter="sqrt(-2*log(random()))*cos(2*PI*random())")
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(0))
    return alt.layer(zero, dots, data=d).properties(width=300).facet(column=alt.Column(f"{facet}:N", title=None),
                                                                      title=title)


# --------------------------------------------------------------------------- identity terms

# Terms that appear in the identity lists but are also used as insults or slurs in some contexts. Their rank can
# reflect that use rather than the group, so the chapter marks them instead of reading them as group attitudes.
PEJORATIVE_IN_SOME_USES: dict[str, str] = {
    "gay": "used as a generic insult ('that's so gay') in some slang",
    "queer": "a reclaimed self-label that is still used as a slur",
    "retarded": "a clinical label that became a common slur; HolisticBias marks it dispreferred",
    "crippled": "dated and often derogatory; HolisticBias marks it dispreferred",
    "dumb": "means 'unable to speak' but mostly used as 'stupid'",
    "lame": "means 'unable to walk normally' but mostly used as 'uncool'",
    "midget": "regarded as a slur by many people of short stature",
    "redneck": "a class/regional label used mostly as an insult",
    "hillbilly": "a regional label used mostly as an insult",
    "ghetto": "used as an adjective meaning 'low-class'",
    "illegal": "as a noun for immigrants ('illegals') it is widely considered dehumanising",
    "oriental": "dated for people of East Asian descent and considered offensive",
    "colored": "historically a segregation-era label; offensive in US usage",
    "fat": "a descriptor also used as an insult (reclaimed by some fat-acceptance writers)",
    "homosexual": "clinical term some style guides discourage as stigmatising",
    "ginger": "used to tease red-haired people, especially in the UK",
    "trailer trash": "a class label that is an insult by construction",
}

# Noun forms under which identity adjectives appear as EloEverything items (religions and ideologies).
NOUN_FORMS: dict[str, tuple[str, ...]] = {
    "christian": ("christianity",), "jewish": ("judaism", "jews"), "muslim": ("islam", "muslims"),
    "buddhist": ("buddhism",), "hindu": ("hinduism",), "sikh": ("sikhism",), "catholic": ("catholicism",),
    "protestant": ("protestantism",), "taoist": ("taoism",), "atheist": ("atheism",),
    "liberal": ("liberalism",), "conservative": ("conservatism",), "socialist": ("socialism",),
    "communist": ("communism",), "feminist": ("feminism",), "libertarian": ("libertarianism",),
    "female": ("woman", "women"), "male": ("man", "men"),
}


# Dixon et al. terms that HolisticBias does not list in the same spelling, on the HolisticBias axis they belong to.
DIXON_AXES: dict[str, str] = {"african american": "race_ethnicity", "canadian": "nationality",
                              "japanese": "nationality", "middle aged": "age", "millenial": "cultural"}

# Items that match an identity term by the rules of match_identity_items but mostly mean something else. They are
# left out by default, each with the reason, so that a spice or a pair of shorts is not read as a group of people.
AMBIGUOUS_ITEMS: dict[str, str] = {
    "shorts": "clothing, not people who are short",
    "country": "the word or country music, not a cultural group",
    "latin": "the language",
    "ginger": "the spice and plant as much as red hair",
    "white": "the colour as much as the group",
    "straight": "mostly the geometric/ordinary sense",
    "older": "a comparative, not a group",
    "slow": "mostly the ordinary sense",
}


def identity_terms() -> pd.DataFrame:
    """HolisticBias descriptors and the Dixon et al. terms in one table.

    Columns: term (lowercase), source ('holistic_bias', 'dixon' or 'both'), axis (HolisticBias axis; Dixon terms not
    in HolisticBias get theirs from DIXON_AXES), bucket, hb_preference (HolisticBias's 'reviewed', 'dispreferred' or
    'polarizing' label), pejorative_in_some_uses (bool), note (the reason, from PEJORATIVE_IN_SOME_USES).
    """
    from rmlib.data import load_dixon, load_holistic_bias

    hb = load_holistic_bias()
    hb = hb.assign(term=hb["descriptor"].str.lower().str.strip())
    hb = hb.groupby("term", as_index=False).agg({"axis": "first", "bucket": "first", "preference": "first"})\
        .rename(columns={"preference": "hb_preference"})  # a term listed under two axes keeps its first
    dx = load_dixon().assign(term=lambda d: d["term"].str.lower().str.strip())[["term"]].drop_duplicates()
    out = hb.merge(dx.assign(_dx=True), on="term", how="outer")
    out["source"] = np.select([out["axis"].notna() & out["_dx"].eq(True), out["axis"].notna()],
                              ["both", "holistic_bias"], "dixon")
    out["axis"] = out["axis"].fillna(out["term"].map(DIXON_AXES)).fillna("dixon_only")
    out["pejorative_in_some_uses"] = out["term"].isin(PEJORATIVE_IN_SOME_USES)
    out["note"] = out["term"].map(PEJORATIVE_IN_SOME_USES).fillna("")
    return out[["term", "source", "axis", "bucket", "hb_preference", "pejorative_in_some_uses", "note"]]\
        .sort_values(["axis", "term"], ignore_index=True)


def _norm_item(s: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", str(s)).strip().lower()


def match_identity_items(items: Iterable[str], terms: pd.DataFrame | None = None,
                         include_ambiguous: bool = False) -> pd.DataFrame:
    """Which items (EloEverything titles, dictionary words) name an identity term, by strict rules only.

    An item matches a term when, lowercased and without a trailing '(...)', it equals the term, the term + 's',
    'term people', or a listed noun form (NOUN_FORMS: 'christian' -> 'christianity'). No substring matching: 'Black
    hole' is not about people. Items listed in AMBIGUOUS_ITEMS are dropped unless ``include_ambiguous``.
    Returns item, term, rule, ambiguous (the reason, or ''), plus the term's columns from identity_terms().
    """
    terms = identity_terms() if terms is None else terms
    require_columns(terms, ["term"], "terms")
    forms: dict[str, list[tuple[str, str]]] = {}
    for t in terms["term"]:
        for form, rule in [(t, "exact"), (t + "s", "plural"), (t + " people", "'people'")] + \
                [(f, "noun form") for f in NOUN_FORMS.get(t, ())]:
            forms.setdefault(form, []).append((t, rule))
    rows = []
    for item in dict.fromkeys(items):
        key = _norm_item(item)
        if key in AMBIGUOUS_ITEMS and not include_ambiguous:
            continue
        for t, rule in forms.get(key, []):
            rows.append((item, t, rule, AMBIGUOUS_ITEMS.get(key, "")))
    m = pd.DataFrame(rows, columns=["item", "term", "rule", "ambiguous"])
    return m.merge(terms, on="term", how="left")


def identity_elo_ranks(elo: pd.DataFrame, matches: pd.DataFrame) -> pd.DataFrame:
    """Where matched identity items sit among all EloEverything items, for each RM and for people.

    ``elo`` is :func:`published_elo_scores`; ``matches`` is :func:`match_identity_items`. Percentiles are taken over
    every item of the prompt (100 = top): model_pct from the RM's score, human_pct from the Elo score, gap =
    model_pct - human_pct (positive: the RM places the item higher than people do). One row per model x prompt x
    matched (item, term).
    """
    require_columns(elo, ["model", "prompt_key", "item", "score", "elo_score"], "elo")
    require_columns(matches, ["item", "term"], "matches")
    d = elo.dropna(subset=["score", "elo_score"]).copy()
    d["model_pct"] = percentile_ranks(d, "score")
    d["human_pct"] = percentile_ranks(d, "elo_score")
    d["gap"] = d["model_pct"] - d["human_pct"]
    return d.merge(matches, on="item", how="inner")


def identity_word_ranks(word_scores: pd.DataFrame, terms: pd.DataFrame | None = None,
                        human_source: str = "warriner", include_ambiguous: bool = False) -> pd.DataFrame:
    """Where identity terms sit among scored words, for each model and in human valence norms.

    The universe is the scored words that ``human_source`` rates (so both rankings cover the same words).
    model_pct: percentile of the score within model x prompt (100 = top); human_pct: percentile of the human valence,
    flipped under negative prompts (a 'worst thing' question puts unpleasant words on top); gap = model_pct -
    human_pct. Returns the rows of identity terms only (without AMBIGUOUS_ITEMS unless ``include_ambiguous``), with
    the term columns; the universe size is in ``n_universe``.
    """
    require_columns(word_scores, ["model", "prompt_key", "prompt_valence", "word", "score"], "word_scores")
    terms = identity_terms() if terms is None else terms
    d = word_scores.assign(word=word_scores["word"].str.lower())
    d = d.assign(human_valence=word_affect(d["word"], human_source, missing="nan").to_numpy())
    d = d.dropna(subset=["human_valence", "score"])
    d["model_pct"] = percentile_ranks(d, "score", item="word")
    hp = percentile_ranks(d, "human_valence", item="word")
    d["human_pct"] = np.where(d["prompt_valence"] == "negative", 100.0 - hp, hp)
    d["gap"] = d["model_pct"] - d["human_pct"]
    d["n_universe"] = d.groupby(["model", "prompt_key"])["word"].transform("size")
    out = d.merge(terms, left_on="word", right_on="term", how="inner")
    return out if include_ambiguous else out[~out["word"].isin(AMBIGUOUS_ITEMS)].reset_index(drop=True)


def token_word_scores(token_scores: pd.DataFrame) -> pd.DataFrame:
    """Token sweeps as word scores: every word-like token (text after :func:`rmlib.data.normalise_token`) grouped
    with the other tokens that spell the same word (' Gay', 'gay', 'GAY').

    Returns model, reward_kind, prompt_key, prompt_valence, word, score (mean over the variants), n_variants,
    token_pct_min / token_pct_max (the lowest and highest percentile of a single variant among all word-like tokens
    of that model x prompt): a wide range warns that one spelling alone would tell a different story.
    """
    from rmlib.data import normalise_token

    require_columns(token_scores, ["model", "prompt_key", "prompt_valence", "text", "score"], "token_scores")
    word = token_scores["text"].map(normalise_token)
    keep = word.str.match(WORDLIKE)
    d = token_scores[keep].assign(word=word[keep])
    d["token_pct"] = percentile_ranks(d, "score", item="word")
    keys = [k for k in ["level", "model", "label", "reward_kind", "prompt_key", "prompt", "prompt_valence", "word"]
            if k in d.columns]
    return d.groupby(keys, as_index=False, sort=False).agg(
        score=("score", "mean"), n_variants=("score", "size"), token_pct_min=("token_pct", "min"),
        token_pct_max=("token_pct", "max"))


def percentile_ranks(df: pd.DataFrame, value: str = "score", by: Sequence[str] = ("model", "prompt_key"),
                     item: str = "item") -> pd.Series:
    """Percentile of each row's value within its group, 100 = top (the RM's favourite), 0 = bottom."""
    require_columns(df, [value, item, *by])
    return df.groupby(list(by), sort=False)[value].rank(pct=True, method="average") * 100.0


def mean_with_ci(df: pd.DataFrame, value: str, by: Sequence[str], cluster: str | None = None,
                 confidence: float = 0.95, n_resamples: int = 999, seed: int = 0) -> pd.DataFrame:
    """Mean of ``value`` per group with a percentile bootstrap CI (scipy.stats.bootstrap).

    With ``cluster`` (e.g. the term), values are first averaged per cluster, so a term that appears under three
    prompts or as four tokens counts once: the CI is over terms, not over repeated rows. Returns *by, mean, ci_low,
    ci_high, n (clusters).
    """
    from scipy import stats

    by = list(by)
    require_columns(df, [value, *by, *([cluster] if cluster else [])])
    data = df.groupby(by + [cluster], sort=False, as_index=False)[value].mean() if cluster else df
    rows = []
    for key, g in data.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        v = g[value].dropna().to_numpy(float)
        row = {**dict(zip(by, key)), "mean": float(v.mean()) if v.size else np.nan, "n": int(v.size)}
        if v.size >= 3 and np.ptp(v) > 0:
            ci = stats.bootstrap((v,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                                 method="percentile", rng=np.random.default_rng(seed)).confidence_interval
            row.update(ci_low=float(ci.low), ci_high=float(ci.high))
        else:
            row.update(ci_low=np.nan, ci_high=np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- chapter charts

SLOPE_CELLS = {"s_pp": ("positive", "positive"), "s_pn": ("positive", "negative"),
               "s_np": ("negative", "positive"), "s_nn": ("negative", "negative")}


def framing_slopes_long(contrast: pd.DataFrame, label: str = "model") -> pd.DataFrame:
    """The four slopes of :func:`framing_contrast` in long form: label, word_side, prompt_valence, slope, ci_low,
    ci_high (one row per model x cell)."""
    require_columns(contrast, [label, *SLOPE_CELLS], "contrast (from framing_contrast)")
    rows = []
    for r in contrast.itertuples(index=False):
        d = r._asdict()
        for c, (side, pv) in SLOPE_CELLS.items():
            rows.append({label: d[label], "word_side": f"{side} words", "prompt_valence": f"{pv} prompts",
                         "slope": d[c], "ci_low": d[f"{c}_ci_low"], "ci_high": d[f"{c}_ci_high"]})
    return pd.DataFrame(rows)


def framing_slopes_chart(contrast: pd.DataFrame, label: str = "model", title: str = ""):
    """Dot-and-whisker of the four oriented slopes per model: one panel per prompt valence, colour = word side.

    The framing claim's two halves are read within a panel: under positive prompts the positive-word dot should
    lie right of the negative-word dot, under negative prompts the other way round.
    """
    import altair as alt

    long = framing_slopes_long(contrast, label)
    colour = alt.Color("word_side:N", title="words",
                       scale=alt.Scale(domain=["positive words", "negative words"], range=["#4c78a8", "#e45756"]))
    y = alt.Y(f"{label}:N", title=None, axis=alt.Axis(labelLimit=260))
    base = alt.Chart().encode(y=y, yOffset="word_side:N", color=colour)
    rule = base.mark_rule().encode(x=alt.X("ci_low:Q", title="oriented slope (SD of score per valence point)"),
                                   x2="ci_high:Q")
    dots = base.mark_circle(size=50, opacity=1).encode(
        x="slope:Q", tooltip=[f"{label}:N", "word_side:N", "prompt_valence:N", alt.Tooltip("slope:Q", format=".3f"),
                              alt.Tooltip("ci_low:Q", format=".3f"), alt.Tooltip("ci_high:Q", format=".3f")])
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(0))
    return alt.layer(zero, rule, dots, data=long).properties(width=260).facet(
        column=alt.Column("prompt_valence:N", title=None, sort=["positive prompts", "negative prompts"]),
        title=title)


def word_swarm_chart(words: pd.DataFrame, x: str = "valence", y: str = "oriented_y", label: str = "word",
                     facet: str = "prompt_valence", color: str = "word_side", title: str = ""):
    """Beeswarm of words: x = lexicon valence spread by :func:`swarm_offsets`, y = mean oriented score; one panel per
    prompt valence. Give one row per word x panel (aggregate first: the chart embeds every row)."""
    import altair as alt

    require_columns(words, [x, y, label, facet, color])
    d = words[[x, y, label, facet, color]].copy()
    step = 0.8 / max(1.0, float(d.groupby([facet, x]).size().max()) ** 0.5)
    d["x_swarm"] = d[x] + swarm_offsets(d, x, y, by=[facet], step=min(0.06, step * 0.3))
    return alt.Chart(d, title=title).mark_circle(size=22, opacity=0.7).encode(
        x=alt.X("x_swarm:Q", title=f"{x} (spread within each value)"),
        y=alt.Y(f"{y}:Q", title="mean oriented score (z)"),
        color=alt.Color(f"{color}:N", scale=alt.Scale(domain=["positive", "negative"], range=["#4c78a8", "#e45756"])),
        tooltip=[f"{label}:N", alt.Tooltip(f"{x}:Q", format=".2f"), alt.Tooltip(f"{y}:Q", format=".2f")],
    ).properties(width=300, height=260).facet(column=alt.Column(f"{facet}:N", title=None)).interactive()
