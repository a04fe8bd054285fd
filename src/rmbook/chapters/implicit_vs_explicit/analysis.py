"""Implicit vs explicit reward models: the same pairs, three evaluation sets, accuracy with CIs, reliance on tokens.

Why: Razin et al. report that an implicit RM (IM-RM: DPO's β·log πθ/πref) generalises worse than an explicit RM
(EX-RM: a scalar head, Bradley-Terry) under token-level shifts, and comparably or better under domain shifts,
because its reward leans on the tokens of a response. Here both are trained by :func:`rmlib.train.train` from one
base on identical pairs, order and steps, and scored on:

* ``in_distribution``: held-out pairs of the training source (prompts never trained on);
* ``token_shift``: the same held-out pairs, rewritten alike on both sides
  (:mod:`rmbook.chapters.implicit_vs_explicit.token_shift`);
* ``domain:<source>``: pairs of another preference source in :mod:`rmlib.data`.

Accuracy CIs bootstrap over pairs. The comparisons between the two RMs are paired (the same pairs scored by both),
so their CIs bootstrap the per-pair differences. With one base and one seed, the unit of every CI is the pair: a
statement is about these two RMs, not about implicit and explicit RMs in general.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
import pandas as pd
import torch  # the chapter trains and scores with it (rmlib.train.pairs loads it on import already)

from rmbook.chapters.implicit_vs_explicit.claims import DOMAIN_MARGIN
from rmbook.analysis.claims.rules import share_outcome
from rmbook.chapters.finetuning.analysis import run_name
from rmbook.chapters.implicit_vs_explicit.token_shift import SHIFTS, jaccard, shift_pairs
from rmlib.data.preferences import load_preferences, sample_pairs
from rmlib.models import LoadOptions, cached_model
from rmlib.models.devices import dtype_name
from rmlib.stats import require_columns, spearman_ci
from rmlib.stats.resampling import bootstrap_ci, mean_with_ci
from rmlib.train import (TrainConfig, own_name, same_finished_run, score_pairs, select_pairs, train,
                         train_data_hash)
from rmlib.train.encode import encode_pairs
from rmlib.train.pairs import _usable

__all__ = ["train_both", "evaluation_sets", "score_sets", "accuracy_table", "paired_gaps", "overlap_correlations",
           "displacement", "displacement_summary", "heldout_logratios", "pattern_verdict", "pair_token_logps"]

IN_DISTRIBUTION, TOKEN_SHIFT = "in_distribution", "token_shift"


def train_both(cfg: TrainConfig, beta: float, progress: bool = True) -> dict:
    """The EX-RM (Bradley-Terry) and the IM-RM (DPO, β = `beta`) of one config: same pairs, order, steps, tuning.

    The EX-RM is named as the finetuning chapter names its runs (:func:`rmbook.chapters.finetuning.analysis.run_name`),
    so a finished run of that chapter with exactly this config (same hash) is reused rather than retrained, and a run
    trained here is reused by that chapter. If a different run holds that name, the EX-RM is trained under an
    ``ive-ex-`` name instead; and if a different run holds the ``ive-`` name of either RM too, under that name
    with its run hash (:func:`rmlib.train.naming.own_name`). Returns {ex, im (TrainResults), ex_reused (True when it
    was already there)}.
    """
    name = run_name(cfg.base, cfg.sources, cfg.seed, cfg.n_pairs, cfg.steps, cfg.batch_size, cfg.tuning)
    data_hash = train_data_hash(cfg)  # the pairs depend on neither the name nor the objective
    ex_cfg = replace(cfg, name=name, objective="bradley_terry")
    found = same_finished_run(ex_cfg, data_hash)
    if found is False:
        ex_cfg, found = own_name(replace(ex_cfg, name="ive-ex-" + name.removeprefix("ft-")), data_hash)
    ex = train(ex_cfg, progress=progress)
    im_cfg, _ = own_name(replace(cfg, name=f"ive-im-{name.removeprefix('ft-')}-b{beta:g}", objective="dpo",
                                 beta=beta), data_hash)
    im = train(im_cfg, progress=progress)
    return {"ex": ex, "im": im, "ex_reused": bool(found) and ex.resumed_from is None}


def evaluation_sets(cfg: TrainConfig, n: int, domain_sources: Sequence[str] = (),
                    shifts: Sequence[str] = SHIFTS) -> pd.DataFrame:
    """The pairs of every evaluation set, long (column ``eval_set``), n per set (fewer if a source has fewer).

    The in-distribution pairs come from the run's held-out prompts (the split of ``cfg``; they contain the run's own
    test pairs when n >= cfg.n_test); the token-shift set is those pairs rewritten; each domain set is a
    seeded sample of another source, filtered like training data.
    """
    train_pairs, held_out = select_pairs(cfg, n_test=n)
    if held_out["prompt"].isin(train_pairs["prompt"]).any():
        raise AssertionError("held-out prompts overlap the training prompts")  # the split is by prompt
    sets = [held_out.assign(eval_set=IN_DISTRIBUTION),
            shift_pairs(held_out, shifts).assign(eval_set=TOKEN_SHIFT)]
    for src in domain_sources:
        if src in cfg.sources:
            raise ValueError(f"domain source {src!r} is a training source of {cfg.name}; choose another")
        other = load_preferences(src)
        other = other[_usable(other)]
        sets.append(sample_pairs(other, min(n, len(other)), seed=cfg.seed).assign(eval_set=f"domain:{src}"))
    out = pd.concat(sets, ignore_index=True)
    out["chosen_rejected_overlap"] = [jaccard(a, b) for a, b in zip(out["chosen"], out["rejected"])]
    return out


def score_sets(model_id: str, sets: pd.DataFrame, max_len: int, label: str, *, load=None,
               progress: bool = False) -> pd.DataFrame:
    """:func:`rmlib.train.score_pairs` of every set (an EX-RM's scalar reward or an IM-RM's implicit reward),
    with ``rm`` = label and a ``correct`` column (1, 0, or 0.5 for a tie)."""
    require_columns(sets, ["eval_set", "pair_id", "prompt", "chosen", "rejected"], "sets")
    frames = []
    for name, pairs in sets.groupby("eval_set", sort=False):
        scored = score_pairs(model_id, pairs, max_len, progress=progress, load=load)
        extra = pairs.drop(columns=["prompt", "chosen", "rejected", "truncated"], errors="ignore")
        frames.append(scored.merge(extra, on="pair_id", validate="one_to_one"))
    out = pd.concat(frames, ignore_index=True).assign(rm=label)
    m = out["margin"].to_numpy()
    out["correct"] = (m > 0) + 0.5 * (m == 0)
    return out


def accuracy_table(scored: pd.DataFrame, n_resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Pairwise accuracy per RM and set with a percentile bootstrap CI over pairs (:func:`rmlib.stats.bootstrap_ci`):
    rm, eval_set, accuracy, ci_low, ci_high, n."""
    require_columns(scored, ["rm", "eval_set", "correct"], "scored")
    # an accuracy over many pairs: the percentile bootstrap, which stays within [0, 1]
    t = mean_with_ci(scored, "correct", ["rm", "eval_set"], n_resamples=n_resamples, seed=seed, interval="bootstrap")
    t = t.rename(columns={"mean": "accuracy"})
    const = t["ci_low"].isna() & (t["n"] >= 3)  # every pair scored alike (e.g. all right): each resample gives it
    t.loc[const, ["ci_low", "ci_high"]] = np.repeat(t.loc[const, ["accuracy"]].to_numpy(), 2, axis=1)
    return t


def _paired_ci(diff: np.ndarray, n_resamples: int, seed: int) -> tuple[float, float]:
    if diff.size < 3 or np.ptp(diff) == 0:
        return float(diff.mean()), float(diff.mean())
    return bootstrap_ci((diff,), np.mean, n_resamples=n_resamples, seed=seed)  # over pairs: many units


def paired_gaps(scored: pd.DataFrame, implicit: str, explicit: str, n_resamples: int = 2000,
                seed: int = 0) -> pd.DataFrame:
    """IM − EX accuracy per set, paired over pairs, with CIs; plus, for the token shift, the difference of drops
    (IM's accuracy loss from in-distribution to token-shifted minus EX's), paired over the same pairs.

    Columns: eval_set, gap (IM − EX accuracy; for ``token_shift_drop``: IM drop − EX drop, > 0 = IM loses more),
    ci_low, ci_high, n.
    """
    require_columns(scored, ["rm", "eval_set", "pair_id", "correct"], "scored")
    wide = scored.pivot_table(index=["eval_set", "pair_id"], columns="rm", values="correct")
    missing = {implicit, explicit} - set(wide.columns)
    if missing:
        raise ValueError(f"no scores for {sorted(missing)}; have {sorted(wide.columns)}")
    rows = []
    for name, g in wide.groupby(level="eval_set", sort=False):
        d = (g[implicit] - g[explicit]).dropna().to_numpy(float)
        rows.append((name, float(d.mean()), *_paired_ci(d, n_resamples, seed), d.size))
    if {IN_DISTRIBUTION, TOKEN_SHIFT} <= set(wide.index.get_level_values("eval_set")):
        a, b = wide.loc[IN_DISTRIBUTION], wide.loc[TOKEN_SHIFT]
        both = a.index.intersection(b.index)
        drop = (a.loc[both] - b.loc[both])
        d = (drop[implicit] - drop[explicit]).to_numpy(float)
        rows.append(("token_shift_drop", float(d.mean()), *_paired_ci(d, n_resamples, seed), d.size))
    return pd.DataFrame(rows, columns=["eval_set", "gap", "ci_low", "ci_high", "n"])


def overlap_correlations(scored: pd.DataFrame) -> pd.DataFrame:
    """How much each RM's margin follows surface overlap, per RM and set (Spearman, Bonett-Wright CI):

    * ``chosen_rejected_overlap``: the margin against the word overlap (Jaccard) of the two responses (an RM that
      reads tokens has less to go on when they share most words);
    * ``kept_words`` (token-shift set only): the change of margin under the rewrite against the share of words the
      rewrite kept (an RM that leans on tokens should lose more margin the more words change).
    """
    require_columns(scored, ["rm", "eval_set", "pair_id", "margin", "chosen_rejected_overlap"], "scored")
    rows = []
    for (rm, name), g in scored.groupby(["rm", "eval_set"], sort=False):
        rows.append({"rm": rm, "eval_set": name, "feature": "chosen_rejected_overlap",
                     **_spearman(g["margin"], g["chosen_rejected_overlap"])})
    if "kept_words" in scored.columns:
        for rm, g in scored.groupby("rm", sort=False):
            base = g[g["eval_set"] == IN_DISTRIBUTION].set_index("pair_id")["margin"]
            sh = g[g["eval_set"] == TOKEN_SHIFT].set_index("pair_id")
            if sh.empty or base.empty:
                continue
            change = sh["margin"] - base.reindex(sh.index)
            rows.append({"rm": rm, "eval_set": TOKEN_SHIFT, "feature": "kept_words (margin change)",
                         **_spearman(change, sh["kept_words"])})
    return pd.DataFrame(rows)


def _spearman(x, y) -> dict:
    """spearman_ci, or NaNs when rho is undefined (a constant feature: e.g. a rewrite that kept every word)."""
    try:
        return spearman_ci(x, y)
    except ValueError:
        return {"rho": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "n": int(len(x)),
                "method": "undefined (constant input)"}


def displacement(log: pd.DataFrame, beta: float) -> pd.DataFrame:
    """From a DPO run's training log, one row per step: the loss, the implicit reward margin, and for the chosen
    and rejected completions of the step's batch (batch means) the policy's summed log-prob (``logp_*``) and its
    log-ratio to the reference, log πθ − log πref in nats (``logratio_*``: TRL's ``rewards/*`` divided by β).

    Why the log-ratios: every step sees other pairs, so the raw log-probs of two steps differ by what the pairs are
    (longer responses have lower log-probs) as much as by training. Relative to the reference, each pair is its own
    baseline (0 before training), so steps compare and a fall means the response became less likely than it was.
    """
    cols = {"logps/chosen": "logp_chosen", "logps/rejected": "logp_rejected", "rewards/margins": "margin"}
    require_columns(log, ["step", "loss", *cols, "rewards/chosen", "rewards/rejected"], "DPO training log")
    if not beta > 0:
        raise ValueError(f"beta must be positive (the run's DPO β), not {beta!r}")
    out = log[["step", "loss", *cols]].rename(columns=cols).reset_index(drop=True)
    out["logratio_chosen"] = log["rewards/chosen"].to_numpy(float) / beta
    out["logratio_rejected"] = log["rewards/rejected"].to_numpy(float) / beta
    return out


def displacement_summary(traj: pd.DataFrame, window: int = 5) -> dict:
    """Start and end (means of the first and last `window` logged steps) of the chosen and rejected log-ratios, the
    raw log-probs and the margin, with their changes. ``displaced``: at the end the chosen completion is less likely
    than under the reference (log-ratio < 0) while the margin has grown: likelihood displacement, read on
    quantities that compare across batches (see :func:`displacement`)."""
    require_columns(traj, ["step", "logratio_chosen", "logratio_rejected", "logp_chosen", "logp_rejected",
                           "margin"], "traj")
    w = max(1, min(window, len(traj) // 2 or 1))
    first, last = traj.head(w).mean(numeric_only=True), traj.tail(w).mean(numeric_only=True)
    out = {"window": w, "n_steps": int(traj["step"].max())}
    for c in ("logratio_chosen", "logratio_rejected", "logp_chosen", "logp_rejected", "margin"):
        out[f"{c}_start"], out[f"{c}_end"] = float(first[c]), float(last[c])
        out[f"{c}_change"] = float(last[c] - first[c])
    out["displaced"] = bool(out["logratio_chosen_end"] < 0 and out["margin_change"] > 0)
    return out


def heldout_logratios(scored: pd.DataFrame, rm: str, eval_set: str = IN_DISTRIBUTION, n_resamples: int = 2000,
                      seed: int = 0) -> pd.DataFrame:
    """After training, on held-out pairs: the IM-RM's log πθ − log πref of the chosen and of the rejected completion
    (nats), each with a bootstrap CI over pairs. The end point of likelihood displacement on pairs never trained
    on, free of the batch-to-batch variation of the training log. Columns: completion, mean, ci_low, ci_high, n."""
    require_columns(scored, ["rm", "eval_set", "logp_chosen", "ref_logp_chosen", "logp_rejected",
                             "ref_logp_rejected"], "scored")
    s = scored[(scored["rm"] == rm) & (scored["eval_set"] == eval_set)]
    if s.empty:
        raise ValueError(f"no scored pairs of {rm!r} on {eval_set!r}")
    long = pd.concat([pd.DataFrame({"completion": side, "logratio": s[f"logp_{side}"] - s[f"ref_logp_{side}"]})
                      for side in ("chosen", "rejected")], ignore_index=True)
    return mean_with_ci(long, "logratio", ["completion"], n_resamples=n_resamples, seed=seed, interval="bootstrap")


def pattern_verdict(gaps: pd.DataFrame, changed_share: float | None = None, acc: pd.DataFrame | None = None,
                    margin: float = DOMAIN_MARGIN) -> dict:
    """Does the published pattern hold for these two RMs? The same burden of proof on both halves.

    Token level: IM loses more accuracy under the rewrite than EX: 'replicates' when the drop difference's CI lies
    above 0, 'does not replicate' when below, else 'not established' (the claims page's word). With ``changed_share`` =
    0 (the rewrite changed no pair) the token level is 'not tested'.

    Domain ("comparable or better", a non-inferiority claim, so it needs a margin: ``margin``, 0.05 accuracy by
    default, the claims page's :data:`~rmbook.chapters.implicit_vs_explicit.claims.DOMAIN_MARGIN`): per domain set
    (``domain_sets``), 'comparable or better' when the IM − EX CI lies above −margin, 'worse' when it lies below
    −margin, else 'not established'. The half follows the claims page's share rule over the sets
    (:func:`~rmbook.analysis.claims.rules.share_outcome`): 'replicates' when at least 75% are comparable or better,
    'does not replicate' when at least 75% are worse (the mirror), 'not established' when none is either, else
    'mixed'. ``domain_worse_sets`` lists the worse sets. ``replicates`` is both halves replicating.

    With ``acc`` (:func:`accuracy_table`), ``below_chance`` lists the RMs whose accuracy CI on a domain set lies
    below 0.5: that source's labels run against what training taught, so there a *higher* accuracy can mean that
    an RM learnt less of the training preference rather than that it generalises better. Such a set is 'not
    established' for the domain half, whatever its CI.
    """
    require_columns(gaps, ["eval_set", "gap", "ci_low", "ci_high"], "gaps")
    if not margin > 0:
        raise ValueError(f"the domain margin must be positive, not {margin!r}")
    g = gaps.set_index("eval_set")
    out = {"token": None, "domain": None, "domain_margin": float(margin), "domain_sets": {}, "domain_worse_sets": []}
    if changed_share == 0:
        out["token"] = "not tested"
    elif "token_shift_drop" in g.index:
        r = g.loc["token_shift_drop"]
        out["token"] = ("replicates" if r["ci_low"] > 0 else "does not replicate" if r["ci_high"] < 0
                        else "not established")
    out["below_chance"] = []
    if acc is not None:
        require_columns(acc, ["rm", "eval_set", "accuracy", "ci_low", "ci_high"], "acc")
        low = acc[acc["eval_set"].str.startswith("domain:") & (acc["ci_high"] < 0.5)]
        out["below_chance"] = [{k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in r.items()}
                               for r in low[["rm", "eval_set", "accuracy", "ci_low", "ci_high"]].to_dict("records")]
    flagged = {b["eval_set"] for b in out["below_chance"]}
    for s, r in g[g.index.str.startswith("domain:")].iterrows():
        out["domain_sets"][s.split(":", 1)[1]] = (
            "not established (below chance)" if s in flagged else "comparable or better" if r["ci_low"] > -margin
            else "worse" if r["ci_high"] < -margin else "not established")
    if out["domain_sets"]:
        kinds = list(out["domain_sets"].values())
        better, worse = kinds.count("comparable or better"), kinds.count("worse")
        share = share_outcome(better, len(kinds), against=worse)  # holds / mixed / not established / fails
        out["domain"] = {"holds": "replicates", "fails": "does not replicate"}.get(share, share)
        out["domain_worse_sets"] = [k for k, v in out["domain_sets"].items() if v == "worse"]
    out["replicates"] = out["token"] == "replicates" and out["domain"] == "replicates"
    return out


def _token_logps(lm, ids, start: int) -> np.ndarray:
    """log π(token | the tokens before it) of each token from position ``start`` on: the completion's tokens."""
    ids_t = torch.tensor([list(ids)], device=lm.device)
    with torch.inference_mode():
        logp = torch.log_softmax(lm.model(input_ids=ids_t).logits[0, :-1].float(), dim=-1)
    return logp.gather(-1, ids_t[0, 1:, None])[start - 1:, 0].cpu().numpy()


def pair_token_logps(model_id: str, load: LoadOptions, pairs: pd.DataFrame, max_len: int) -> list[dict]:
    """Per pair, the per-token log-probs of the chosen and the rejected completion under the IM-RM ``model_id`` and
    under its reference (its base, loaded as :func:`rmlib.train.score_pairs` loads it): what DPO's implicit reward
    is built from, for the course's exercise to combine. Each: pair_id, n_tokens (chosen, rejected), policy_chosen,
    ref_chosen, policy_rejected, ref_rejected."""
    policy = cached_model(model_id, load)
    ref = cached_model(policy.spec.extra["base_model"],
                       LoadOptions(head="lm", dtype=dtype_name(policy.dtype), device=str(policy.device),
                                   seed=int(policy.spec.extra.get("seed", 0))))
    out = []
    for pair in encode_pairs(policy.tokenizer, policy.chat_template, pairs, max_len).itertuples():
        c, j, n = pair.chosen_ids, pair.rejected_ids, pair.prompt_len
        out.append({"pair_id": pair.pair_id, "n_tokens": (len(c) - n, len(j) - n),
                    **{f"{who}_{side}": _token_logps(lm, ids, n) for who, lm in (("policy", policy), ("ref", ref))
                       for side, ids in (("chosen", c), ("rejected", j))}})
    return out
