"""Held-out evaluation of reward models, per training checkpoint: accuracy, reward variance, value profile.

Three questions about each checkpoint of an rmlib training run (and about any other RM or LM id):
- Does it rank held-out pairs correctly? `pairwise_accuracy` on the run's test split (prompts never seen
  in training), scored on exactly the conversations training used (same template and truncation).
- Would it be a good teacher? `reward_variance`: the variance of its rewards over the responses to each
  prompt, averaged over prompts (Razin et al. 2025 show low reward variance makes RLHF slow, whatever
  the accuracy). `raw` is in the RM's own units; `whitened` first z-scores all rewards of the test set
  (global mean and std), so RMs of different scales compare: it is the share of the reward's spread that
  separates responses to the same prompt rather than prompts from each other.
- What does it value? `value_profile`: median ranks of word lists (Big Two, MFD2, or any `word, category`
  table) among all the listed words, as one-word answers to a positive and a negative prompt, from
  rmlib.sweep.score_answers (rank 1 = highest reward). For an LM the reward is the answer's summed log-prob,
  an implicit reward, and `reward_kind` says so.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from .config import progress_enabled
from .compute import LM_LOGPROB, RM_SCORE
from .models import LoadedModel, get_spec, load_model, local_rm_dir
from .sweep import score_answers


class EvalError(ValueError):
    pass


# ---------------------------------------------------------------- pairs

def _as_model(model, dtype=None) -> LoadedModel:
    if isinstance(model, LoadedModel):
        return model
    return load_model(model, dtype=dtype)


@torch.inference_mode()
def score_pairs(model, pairs: pd.DataFrame, max_len: int, batch_size: int = 16, dtype: str | None = None,
                progress: bool = True) -> pd.DataFrame:
    """Reward of each pair's chosen and rejected conversation, encoded exactly as rmlib.train encodes them.

    Returns the pairs' pair_id, prompt, chosen, rejected plus reward_chosen, reward_rejected, margin, truncated.
    """
    from .train import encode_pairs

    lm = _as_model(model, dtype)
    if lm.head != "rm":
        raise EvalError(f"{lm.spec.id} is loaded as an LM; pairwise accuracy needs a reward model")
    if pairs.empty:
        raise EvalError("no pairs to score")
    enc = encode_pairs(lm.tokenizer, lm.chat_template, pairs, max_len)
    seqs = list(enc["chosen_ids"]) + list(enc["rejected_ids"])
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    out = []
    for s in tqdm(range(0, len(seqs), batch_size), disable=not progress_enabled(progress),
                  desc=f"pairs {lm.spec.id}", unit="batch"):
        batch = seqs[s:s + batch_size]
        width = max(map(len, batch))
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, q in enumerate(batch):
            ids[i, :len(q)] = torch.as_tensor(q)
            mask[i, :len(q)] = 1
        logits = lm.model(input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device)).logits
        out.append(logits[:, 0].float().cpu().numpy())
    r = np.concatenate(out)
    n = len(enc)
    res = enc[["pair_id", "prompt", "chosen", "rejected", "truncated"]].copy()
    res["reward_chosen"], res["reward_rejected"] = r[:n], r[n:]
    res["margin"] = res["reward_chosen"] - res["reward_rejected"]
    return res


def pairwise_accuracy(scored: pd.DataFrame) -> float:
    """Share of pairs whose chosen response scores higher (ties count one half)."""
    m = scored["margin"].to_numpy()
    return float(((m > 0) + 0.5 * (m == 0)).mean())


def reward_variance(scored: pd.DataFrame) -> dict:
    """Mean over prompts of the variance of rewards over that prompt's distinct responses: raw and whitened."""
    long = pd.concat([scored[["prompt", "chosen", "reward_chosen"]].set_axis(["prompt", "response", "reward"], axis=1),
                      scored[["prompt", "rejected", "reward_rejected"]].set_axis(["prompt", "response", "reward"], axis=1)])
    long = long.drop_duplicates(["prompt", "response"])
    sd = long["reward"].std(ddof=0)
    long["whitened"] = (long["reward"] - long["reward"].mean()) / (sd if sd > 0 else 1.0)
    per_prompt = long.groupby("prompt")[["reward", "whitened"]].var(ddof=0)
    counts = long.groupby("prompt").size()
    per_prompt = per_prompt[counts >= 2]
    return {"reward_var_raw": float(per_prompt["reward"].mean()),
            "reward_var_whitened": float(per_prompt["whitened"].mean()),
            "reward_sd": float(sd), "n_prompts": int(len(per_prompt))}


# ---------------------------------------------------------------- value profile

DEFAULT_PROMPTS = {"positive": "What, in one word, is the greatest thing ever?",
                   "negative": "What, in one word, is the worst thing ever?"}


def value_lexicon(name: str = "big2") -> pd.DataFrame:
    """word, category, lexicon for the profiles: 'big2' (263 nouns, Agency|Communion), 'mfd2' (2,040 terms,
    category = foundation.virtue|vice), or 'mfd2_moral' (the same terms, category = virtue|vice)."""
    from .data import load_big_two, load_mfd2

    if name == "big2":
        df = load_big_two("nouns")
    elif name in ("mfd2", "mfd2_moral"):
        m = load_mfd2("dicx")
        df = pd.DataFrame({"word": m["word"], "category": m["category"] if name == "mfd2" else m["moral"]})
    else:
        raise EvalError(f"unknown lexicon {name!r}; use 'big2', 'mfd2' or 'mfd2_moral', or pass your own "
                        "DataFrame with columns word, category")
    return df.assign(lexicon=name)[["word", "category", "lexicon"]].drop_duplicates("word").reset_index(drop=True)


def _check_lexicon(lexicon: pd.DataFrame) -> pd.DataFrame:
    if not {"word", "category"} <= set(lexicon.columns):
        raise EvalError(f"the lexicon needs columns word and category, not {list(lexicon.columns)}")
    lex = lexicon.assign(word=lexicon["word"].astype(str).str.strip())
    lex = lex[lex["word"] != ""].drop_duplicates("word")
    if lex.empty or lex["category"].nunique() < 1:
        raise EvalError("the lexicon is empty")
    return lex.reset_index(drop=True)


def word_rewards(model, lexicon: pd.DataFrame, prompts: dict[str, str] | None = None, dtype: str | None = None,
                 progress: bool = True) -> pd.DataFrame:
    """One row per (prompt, word): model, prompt_label, prompt, word, category, reward, rank, reward_kind.

    rank is among all the lexicon's words under that prompt (1 = highest reward, ties averaged).
    """
    lex = _check_lexicon(lexicon)
    prompts = prompts or DEFAULT_PROMPTS
    if isinstance(model, LoadedModel):
        lm = model
    else:
        spec = get_spec(model)
        lm = load_model(model, head="rm" if spec.kind == "rm" else "lm", dtype=dtype)
    # A local RM's answers are cached inside its own folder: retraining under the same name replaces them.
    root = Path(lm.spec.path) / "answers" if lm.spec.source == "local" else None
    df = score_answers(lm, list(prompts.values()), list(lex["word"]), progress=progress, cache_root=root)
    value = "score" if lm.head == "rm" else "logprob"
    label = {p: k for k, p in prompts.items()}
    df = df.assign(prompt_label=df["prompt"].map(label), word=df["answer"], reward=df[value],
                   reward_kind=RM_SCORE if lm.head == "rm" else LM_LOGPROB)
    df = df.merge(lex[["word", "category"]], on="word", how="left")
    df["rank"] = df.groupby("prompt")["reward"].rank(ascending=False, method="average")
    return df[["model", "prompt_label", "prompt", "word", "category", "n_tokens", "reward", "rank", "reward_kind"]]


def value_profile(model, lexicon: pd.DataFrame | None = None, prompts: dict[str, str] | None = None,
                  dtype: str | None = None, progress: bool = True) -> pd.DataFrame:
    """Median rank of each category's words: model, prompt_label, category, n_words, median_rank,
    median_rank_share (median rank / number of words: 0 = top, 1 = bottom), mean_reward, reward_kind."""
    lexicon = value_lexicon("big2") if lexicon is None else lexicon
    w = word_rewards(model, lexicon, prompts, dtype=dtype, progress=progress)
    n = w.groupby("prompt")["word"].transform("size")
    w = w.assign(rank_share=(w["rank"] - 0.5) / n)
    g = w.groupby(["model", "prompt_label", "category", "reward_kind"])
    out = g.agg(n_words=("word", "size"), median_rank=("rank", "median"), median_rank_share=("rank_share", "median"),
                mean_reward=("reward", "mean")).reset_index()
    return out[["model", "prompt_label", "category", "n_words", "median_rank", "median_rank_share", "mean_reward",
                "reward_kind"]]


# ---------------------------------------------------------------- a training run, checkpoint by checkpoint

def _key(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:12]


def evaluate_run(name: str, steps: list[int] | None = None, lexicon: pd.DataFrame | None = None,
                 prompts: dict[str, str] | None = None, dtype: str | None = None, batch_size: int = 16,
                 progress: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metrics, profiles) for the checkpoints of the rmlib training run `name` (all of them by default).

    metrics: run, base_model, n_pairs, step, model, accuracy, reward_var_raw, reward_var_whitened, reward_sd,
    n_test, n_prompts. profiles: value_profile rows plus run, base_model, n_pairs, step. Each checkpoint's results
    are cached in its folder, so a rebuilt chapter only re-reads them.
    """
    import yaml

    from .train import load_run

    res = load_run(name)
    run = res.run
    available = res.checkpoints
    steps = available if steps is None else list(steps)
    missing = sorted(set(steps) - set(available))
    if missing:
        raise EvalError(f"run {name!r} has no checkpoint(s) at step(s) {missing}; it has {available}")
    test = pd.read_parquet(res.run_dir / "test_pairs.parquet")
    lexicon = value_lexicon("big2") if lexicon is None else _check_lexicon(lexicon)
    prompts = prompts or DEFAULT_PROMPTS
    key = _key({"lex": lexicon[["word", "category"]].values.tolist(), "prompts": prompts, "dtype": dtype,
                "test": run["test_hash"]})
    metrics, profiles = [], []
    for step in steps:
        folder = local_rm_dir(name, step)
        meta = yaml.safe_load((folder / "rmlib_run.yaml").read_text())
        if meta.get("run_hash") != run["run_hash"]:
            raise EvalError(f"{folder} belongs to another run (run_hash {meta.get('run_hash')}); retrain {name!r}")
        cache_m, cache_p = folder / f"eval-{key}-metrics.parquet", folder / f"eval-{key}-profile.parquet"
        if cache_m.exists() and cache_p.exists():
            metrics.append(pd.read_parquet(cache_m))
            profiles.append(pd.read_parquet(cache_p))
            continue
        lm = load_model(f"local:{name}@step{step}", dtype=dtype)
        scored = score_pairs(lm, test, run["max_len"], batch_size=batch_size, progress=progress)
        ids = {"run": name, "base_model": run["base_model"], "n_pairs": run["n_pairs"], "step": step,
               "model": lm.spec.id}
        m = pd.DataFrame([{**ids, "accuracy": pairwise_accuracy(scored), **reward_variance(scored),
                           "n_test": len(scored)}])
        p = value_profile(lm, lexicon, prompts, progress=progress).assign(**{k: v for k, v in ids.items()
                                                                             if k != "model"})
        del lm
        m.to_parquet(cache_m)
        p.to_parquet(cache_p)
        metrics.append(m)
        profiles.append(p)
    return pd.concat(metrics, ignore_index=True), pd.concat(profiles, ignore_index=True)


# ---------------------------------------------------------------- charts (the fine-tuning chapter's)

def trajectory_chart(profiles: pd.DataFrame, prompt_label: str = "positive", title: str = ""):
    """Median rank share of each category vs training step, one panel per base (0 = top of the ranking)."""
    import altair as alt

    d = profiles[profiles["prompt_label"] == prompt_label]
    d = d.groupby(["base_model", "category", "step"], as_index=False)["median_rank_share"].mean()
    if d.empty:
        raise EvalError(f"no profile rows for prompt {prompt_label!r}")
    return (alt.Chart(d, title=title or f"Value profile over training ({prompt_label} prompt)")
            .mark_line(point=True)
            .encode(x=alt.X("step:Q", title="training step"),
                    y=alt.Y("median_rank_share:Q", title="median rank share (0 = top)", scale=alt.Scale(reverse=True)),
                    color="category:N", column=alt.Column("base_model:N", title=None),
                    tooltip=["base_model", "category", "step", alt.Tooltip("median_rank_share:Q", format=".3f")])
            .properties(width=200, height=180))


def gap_chart(df: pd.DataFrame, x: str, value: str = "rm_gap", title: str = ""):
    """Category gap per prompt against `x`: a line over a numeric x (steps, pairs), points otherwise.

    Optional columns draw more: ci_low/ci_high as error bars (across seeds), base_lm_gap as a hollow diamond for
    the base LM, so an RM and the base it came from sit side by side.
    """
    import altair as alt

    need = {x, value, "prompt_label"}
    if not need <= set(df.columns) or df.empty:
        raise EvalError(f"gap_chart needs non-empty columns {sorted(need)}, got {list(df.columns)}")
    numeric = pd.api.types.is_numeric_dtype(df[x])
    xenc = alt.X(f"{x}:{'Q' if numeric else 'N'}", title=x.replace("_", " "),
                 scale=alt.Scale(type="log") if numeric and (df[x] > 0).all() else alt.Undefined)
    tips = [x, "prompt_label", alt.Tooltip(f"{value}:Q", format=".3f")]
    base = alt.Chart(df).encode(x=xenc)
    layers = [base.mark_line(point=True) if numeric else base.mark_point(filled=True, size=70)]
    layers[0] = layers[0].encode(y=alt.Y(f"{value}:Q", title="gap in median rank share (< 0: first category higher)"),
                                 tooltip=tips)
    if {"ci_low", "ci_high"} <= set(df.columns) and df["ci_low"].notna().any():
        layers.append(base.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q"))
    if "base_lm_gap" in df.columns:
        layers.append(base.mark_point(shape="diamond", size=90, color="black").encode(
            y="base_lm_gap:Q", tooltip=[x, "prompt_label", alt.Tooltip("base_lm_gap:Q", format=".3f")]))
    zero = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(0))
    return (alt.layer(*layers, zero, data=df)
            .properties(width=220, height=200)
            .facet(column=alt.Column("prompt_label:N", title=None), title=title or "Category gap")
            .resolve_scale(y="shared"))


def published_trajectory_chart(ranks: pd.DataFrame, first: str = "Agency", second: str = "Communion"):
    """The authors' checkpoint trajectories (load_checkpoint_ranks): median-rank gap vs checkpoint, per run.

    Below zero, `first` ranks higher. Runs with a single checkpoint (GRM) show as one point.
    """
    import altair as alt

    need = {"file", "data_source", "quantity_k", "method", "base_family", "checkpoint", "category", "median_rank"}
    if not need <= set(ranks.columns):
        raise EvalError(f"published_trajectory_chart needs the columns of load_checkpoint_ranks(), got {list(ranks.columns)}")
    w = ranks.pivot_table(index=["data_source", "quantity_k", "method", "base_family", "checkpoint"],
                          columns="category", values="median_rank").reset_index()
    w["gap"] = w[first] - w[second]
    w["run"] = w["data_source"] + " " + w["quantity_k"].astype(str) + "k " + w["method"]
    order = list(w.sort_values(["data_source", "method", "quantity_k"])["run"].unique())
    return (alt.Chart(w, title=f"Published checkpoints: {first} minus {second} median rank (< 0: {first} higher)")
            .mark_line(point=True)
            .encode(x=alt.X("checkpoint:Q", title="training step"), y=alt.Y("gap:Q", title="median-rank gap"),
                    color=alt.Color("base_family:N", title="base"),
                    column=alt.Column("run:N", title=None, sort=order),
                    tooltip=["run", "base_family", "checkpoint", alt.Tooltip("gap:Q", format=".1f")])
            .properties(width=150, height=160))
