"""Where the agency − communion gap is written: the lens over the Big Two words, layer by layer, for base LMs
(implicit rewards: the words' logits after the prompt) and RMs (explicit: each word's conversation scored by the head),
and each RM's gap split into what its frozen layers (copies of the base LM's) and its tuned layers wrote.

Only one-token words are read (a word's logit is the implicit reward of that one-token answer, and patching swaps
two conversations position by position); how many words each tokenizer keeps whole is reported. Intervals are
percentile bootstraps over words (:func:`rmlib.stats.bootstrap_ci`, two samples: agency and communion), the gap averaged over
the prompts; the spread over prompts is reported beside it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import rmlib.data as data
from rmlib import lens, models
from rmlib.config import progress_bar
from rmlib.registry import get_spec, split_available
from rmlib.stats import bootstrap_ci

__all__ = ["CATEGORIES", "words_frame", "tuned_layers", "implicit_parts", "explicit_parts", "gap_by_layer",
           "frozen_split", "patch_check", "available_rms", "agreement", "frozen_identity", "read_rm",
           "first_of_each_base", "read_all"]

CATEGORIES = ("Agency", "Communion")


def words_frame(words: dict | None) -> pd.DataFrame:
    """word, category: ``words`` ({category: [words]}) or, when None, the 263 Big Two nouns."""
    if words is None:
        return data.value_lexicon("big2")[["word", "category"]]
    if set(words) != set(CATEGORIES):
        raise ValueError(f"WORDS must map exactly {CATEGORIES} to lists of words, not {sorted(words)}")
    return pd.DataFrame([(w, c) for c in CATEGORIES for w in words[c]], columns=["word", "category"])


def tuned_layers(rm_id: str, default: int) -> int:
    """How many top layers an RM's training tuned: its run file's ``n_layers`` under ``tuning: last_n``, else
    ``default`` (an RM rmlib did not train)."""
    run = (get_spec(rm_id).extra or {}) if rm_id.startswith("local:") else {}
    return int(run["n_layers"]) if run.get("tuning") == "last_n" and run.get("n_layers") else int(default)


def _kept(tokenizer, words: pd.DataFrame) -> pd.DataFrame:
    kept, _ = lens.single_tokens(tokenizer, words["word"])
    return words[words["word"].isin(kept)].assign(token=lambda d: d["word"].map(kept)).reset_index(drop=True)


def _long(parts: np.ndarray, comps, layer_of, rows: pd.DataFrame, **meta) -> pd.DataFrame:
    """parts [W, C] of the words in ``rows`` -> word, category, component, layer, contribution."""
    W, C = parts.shape
    return pd.DataFrame({"word": np.repeat(rows["word"].to_numpy(), C),
                         "category": np.repeat(rows["category"].to_numpy(), C),
                         "component": np.tile(comps, W), "layer": np.tile(layer_of, W),
                         "contribution": parts.reshape(-1)}).assign(**meta)


def implicit_parts(model_id: str, prompts, words: pd.DataFrame, dtype=None) -> tuple[pd.DataFrame, dict]:
    """Each one-token word's logit after each prompt split by block (one pass per prompt for all words): model,
    prompt, word, category, component, layer, contribution; and {n_words, n_layers, max_sum_error, dtype} (the sum's
    error is rounding: about 1e-6 of the score in float32, 1e-3 in bfloat16)."""
    lm = models.cached_model(model_id, models.LoadOptions(head="lm", dtype=dtype))
    kept = _kept(lm.tokenizer, words)
    frames, err = [], 0.0
    for prompt in prompts:
        ids = lens.prompt_ids(lm.tokenizer, lm.chat_template, prompt)
        tokens = kept["token"].tolist()
        d = lens.decompose(lm.model, *lens.batch([ids], lm.tokenizer.pad_token_id or 0, lm.device),
                           lens.lm_readout(lm.model, tokens), token_ids=tokens)
        err = max(err, float(np.abs(d.total - d.model_score).max())) if d.softcap is None else err
        frames.append(_long(d.parts[0].T, d.components, d.layers, kept, model=model_id, kind="implicit", prompt=prompt))
    n_layers = max(d.layers) + 1
    models.release(model_id, models.LoadOptions(head="lm", dtype=dtype))  # one model in memory at a time
    return pd.concat(frames, ignore_index=True), {"n_words": len(kept), "n_layers": n_layers, "max_sum_error": err,
                                                  "n_asked": len(words), "dtype": str(lm.dtype).removeprefix("torch.")}


def _rm(rm_id: str, dtype, random_head: bool):
    return models.cached_model(rm_id, models.LoadOptions(head="rm", dtype=dtype, allow_untrained_head=random_head))


def explicit_parts(rm_id: str, prompts, words: pd.DataFrame, dtype=None,
                   random_head: bool = False) -> tuple[pd.DataFrame, dict]:
    """Each one-token word's RM score (its whole conversation) split by block; the same columns as
    :func:`implicit_parts`. ``random_head``: an LM id gets a random scalar head (the tests' arithmetic only)."""
    rm = _rm(rm_id, dtype, random_head)
    kept = _kept(rm.tokenizer, words)
    frames, err = [], 0.0
    for prompt in prompts:
        seqs = lens.conversation_ids(rm.tokenizer, rm.chat_template, prompt, [[t] for t in kept["token"]])
        d = lens.decompose(rm.model, *lens.batch(seqs, rm.tokenizer.pad_token_id or 0, rm.device),
                           lens.rm_readout(rm.model))
        err = max(err, float(np.abs(d.total - d.model_score).max()))
        frames.append(_long(d.parts[:, :, 0], d.components, d.layers, kept, model=rm_id, kind="explicit", prompt=prompt))
    return pd.concat(frames, ignore_index=True), {"n_words": len(kept), "n_layers": max(d.layers) + 1,
                                                  "max_sum_error": err, "n_asked": len(words),
                                                  "dtype": str(rm.dtype).removeprefix("torch.")}


def _gap_ci(per_word: pd.DataFrame, value: str, n_resamples: int, seed: int) -> tuple[float, float, float]:
    a = per_word.loc[per_word["category"] == "Agency", value].to_numpy(float)
    c = per_word.loc[per_word["category"] == "Communion", value].to_numpy(float)
    gap = float(a.mean() - c.mean()) if a.size and c.size else np.nan
    if min(a.size, c.size) < 3 or n_resamples < 1:
        return gap, np.nan, np.nan
    low, high = bootstrap_ci((a, c), lambda x, y, axis=-1: x.mean(axis) - y.mean(axis), vectorized=True,
                             n_resamples=n_resamples, seed=seed)
    return gap, low, high


def gap_by_layer(parts: pd.DataFrame, n_resamples: int = 999, seed: int = 0) -> pd.DataFrame:
    """model, kind, layer (-1: the embedding), gap (agency − communion mean of what that layer wrote, averaged over the
    prompts), ci_low, ci_high (over words), prompt_min, prompt_max (the gap under each prompt alone)."""
    by = parts.groupby(["model", "kind", "layer", "prompt", "word", "category"], as_index=False,
                       sort=False)["contribution"].sum()
    rows = []
    for (model, kind, layer), g in by.groupby(["model", "kind", "layer"], sort=False):
        per_word = g.groupby(["word", "category"], as_index=False)["contribution"].mean()
        gap, lo, hi = _gap_ci(per_word, "contribution", n_resamples, seed)
        per_prompt = [_gap_ci(p, "contribution", 0, seed)[0] for _, p in g.groupby("prompt")]
        rows.append({"model": model, "kind": kind, "layer": int(layer), "gap": gap, "ci_low": lo, "ci_high": hi,
                     "prompt_min": min(per_prompt), "prompt_max": max(per_prompt)})
    return pd.DataFrame(rows)


def frozen_split(parts: pd.DataFrame, n_layers: int, n_tuned: int, n_resamples: int = 999,
                 seed: int = 0) -> dict:
    """An RM's gap split at its frozen boundary: what the embedding and its first ``n_layers - n_tuned`` layers
    wrote (copies of the base LM's), and what its tuned layers wrote, each with an interval over words; and the
    frozen part's share of the gap."""
    boundary = n_layers - n_tuned
    per_word = parts.assign(part=np.where(parts["layer"] < boundary, "frozen", "tuned")).pivot_table(
        index=["word", "category"], columns="part", values="contribution", aggfunc="sum").reset_index()
    n_prompts = parts["prompt"].nunique()
    per_word[["frozen", "tuned"]] = per_word.reindex(columns=["frozen", "tuned"]).fillna(0.0) / n_prompts
    per_word["total"] = per_word["frozen"] + per_word["tuned"]
    out = {"boundary": boundary, "n_tuned": n_tuned}
    for part in ("frozen", "tuned", "total"):
        out[part], out[f"{part}_low"], out[f"{part}_high"] = _gap_ci(per_word, part, n_resamples, seed)
    out["frozen_share"] = out["frozen"] / out["total"] if out["total"] else np.nan
    return out


def patch_check(rm_id: str, prompt: str, words: pd.DataFrame, n_pairs: int, dtype=None, seed: int = 0,
                n_resamples: int = 999, random_head: bool = False) -> tuple[pd.DataFrame, dict]:
    """Each block's attribution to the gap of ``n_pairs`` (agency word, communion word) pairs under ``prompt``,
    beside its patching effect (:func:`rmlib.lens.attribution_vs_patching`): (table, summary)."""
    rm = _rm(rm_id, dtype, random_head)
    kept = _kept(rm.tokenizer, words)
    rng = np.random.default_rng(seed)
    a = kept[kept["category"] == "Agency"]["token"].to_numpy()
    c = kept[kept["category"] == "Communion"]["token"].to_numpy()
    n = min(n_pairs, len(a), len(c))
    if n < 3:
        return pd.DataFrame(), {"n_pairs": n, "disagree": [], "spearman": None, "gap": np.nan}
    a, c = rng.choice(a, n, replace=False), rng.choice(c, n, replace=False)
    pad = rm.tokenizer.pad_token_id or 0
    clean = lens.batch(lens.conversation_ids(rm.tokenizer, rm.chat_template, prompt, [[t] for t in a]), pad, rm.device)
    corrupt = lens.batch(lens.conversation_ids(rm.tokenizer, rm.chat_template, prompt, [[t] for t in c]), pad,
                         rm.device)
    readout = lens.rm_readout(rm.model)
    att = lens.gap_by_component(lens.decompose(rm.model, *clean, readout), lens.decompose(rm.model, *corrupt, readout))
    return lens.attribution_vs_patching(att, lens.patch_blocks(rm.model, clean, corrupt, readout),
                                        n_resamples=n_resamples, seed=seed)


def available_rms(rm_ids) -> tuple[list[str], dict]:
    """The RMs of ``rm_ids`` this machine holds, and {RM: why it is missing} (a missing RM is reported, not fatal)."""
    return split_available(list(rm_ids))


def _signed(value, low, high) -> int:
    """+1 or -1 when the interval lies wholly on that side of 0, else 0."""
    if low is None or high is None or np.isnan(low) or np.isnan(high):
        return 0
    return 1 if low > 0 else -1 if high < 0 else 0


def agreement(splits: list) -> pd.DataFrame:
    """Per base, whether its RMs (one per seed) agree: base, n_rms, the frozen share's range, and how many RMs'
    frozen part and tuned part have an interval wholly on the side of their whole gap's sign."""
    rows = []
    for base, group in pd.DataFrame([dict(s) for s in splits]).groupby("base", dropna=False, sort=False):
        sign = np.sign(group["total"])
        frozen = [_signed(*r) for r in group[["frozen", "frozen_low", "frozen_high"]].itertuples(index=False)]
        tuned = [_signed(*r) for r in group[["tuned", "tuned_low", "tuned_high"]].itertuples(index=False)]
        rows.append({"base": base if isinstance(base, str) else "(no base)", "n_rms": len(group),
                     "share_min": float(group["frozen_share"].min()), "share_max": float(group["frozen_share"].max()),
                     "n_frozen_with_gap": int((np.asarray(frozen) == sign).sum()),
                     "n_tuned_with_gap": int((np.asarray(tuned) == sign).sum()),
                     "n_gap_signs": int(np.sign(group["total"]).nunique())})
    return pd.DataFrame(rows)


def frozen_identity(rm_id: str, base_id: str, prompt: str, words: pd.DataFrame, boundary: int,
                    random_head: bool = False) -> float:
    """The largest |difference| between the RM's residual stream after its last frozen layer and its base LM's, on
    the words' conversations, relative to the largest |value| there: 0 when the frozen layers are the base's own.
    Both run in float32 and are released after (in bfloat16 two copies of the same weights differ by rounding)."""
    options = {"rm": models.LoadOptions(head="rm", dtype="float32", allow_untrained_head=random_head),
               "lm": models.LoadOptions(head="lm", dtype="float32")}
    rm, base = models.cached_model(rm_id, options["rm"]), models.cached_model(base_id, options["lm"])
    kept = _kept(rm.tokenizer, words)
    seqs = lens.conversation_ids(rm.tokenizer, rm.chat_template, prompt, [[t] for t in kept["token"]])
    ids, mask, pos = lens.batch(seqs, rm.tokenizer.pad_token_id or 0, rm.device)
    states = []
    for m in (rm.model, base.model):
        layer = lens.layer_modules(m)[boundary - 1]
        seen, _ = lens.run_with(m, ids.to(m.device), mask.to(m.device), record=[layer], final_input=False,
                                at=pos.to(m.device))
        states.append(seen[layer].cpu())
    models.release(rm_id, options["rm"])
    models.release(base_id, options["lm"])
    return float((states[0] - states[1]).abs().max() / states[1].abs().max())


def read_rm(rm_id: str, prompts, words: pd.DataFrame, *, n_tuned_default: int, n_pairs: int, dtype=None,
            random_head: bool = False, n_resamples: int = 999, seed: int = 0, check_identity: bool = True) -> dict:
    """Everything the page reads of one RM, then the RM released (twelve models held at once would not fit in a
    laptop's memory): parts and info (:func:`explicit_parts`), its frozen split, its base and seed (its run file; a
    random head on an LM is its own base), the frozen layers' identity with the base's (``check_identity``: a
    float32 load of both, so a page checks one RM per base), and the patching check."""
    parts, info = explicit_parts(rm_id, prompts, words, dtype, random_head)
    split = frozen_split(parts, info["n_layers"], tuned_layers(rm_id, n_tuned_default), n_resamples, seed)
    run = (get_spec(rm_id).extra or {}) if rm_id.startswith("local:") else {}
    base = run.get("base_model") or (rm_id if random_head else None)
    identity = frozen_identity(rm_id, base, prompts[0], words, split["boundary"], random_head) \
        if base and check_identity else None
    patch = patch_check(rm_id, prompts[0], words, n_pairs, dtype, seed, n_resamples, random_head)
    models.release(rm_id, models.LoadOptions(head="rm", dtype=dtype, allow_untrained_head=random_head))
    return {"parts": parts, "info": {"model": rm_id, "kind": "explicit", **info}, "split": split, "base": base,
            "seed": run.get("seed"), "identity": identity, "patch": patch}


def first_of_each_base(rm_ids) -> list[str]:
    """The first RM of each base in ``rm_ids`` (an RM rmlib did not train is its own base)."""
    seen, out = set(), []
    for m in rm_ids:
        base = ((get_spec(m).extra or {}).get("base_model") if m.startswith("local:") else None) or m
        if base not in seen:
            seen.add(base)
            out.append(m)
    return out


def read_all(bases, rm_ids, prompts, words: pd.DataFrame, *, dtype=None, **options) -> tuple[list, list]:
    """Each base LM's parts (:func:`implicit_parts`) and each RM read whole (:func:`read_rm` with ``options``; the
    first RM of each base checks its frozen layers against it), one model at a time, under one progress bar over the
    models: the full run reads twelve for about five minutes, and `make book` prints the bar's count and ETA.

    The RMs are read while their bases are held (:func:`rmlib.models.sharing_bases`): the seeds of one base load it
    once, not once each (#61: 30 loads took 137 s of the page's 411 in a cold build). The frozen layers' checks load
    the first RM of each base and the base in float32, so they come after, outside the block: inside it, each would
    let the held base go and the next seed would load it again."""
    first = set(first_of_each_base(rm_ids))
    bar = progress_bar(total=len(bases) + len(rm_ids), desc="reward lens: models read", unit="model")
    lms, read = [], []
    for m in bases:
        lms.append(implicit_parts(m, prompts, words, dtype))
        bar.update()
    with models.sharing_bases():
        for m in rm_ids:
            read.append(read_rm(m, prompts, words, dtype=dtype, check_identity=False, **options))
            bar.update()
    for r in read:
        if r["info"]["model"] in first and r["base"]:
            r["identity"] = frozen_identity(r["info"]["model"], r["base"], prompts[0], words, r["split"]["boundary"],
                                            options.get("random_head", False))
    bar.close()
    return lms, read
