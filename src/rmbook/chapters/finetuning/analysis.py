"""The fine-tuning chapter's analyses: every checkpoint of a training run evaluated on held-out pairs and profiled
on a value lexicon; the base model's imprint on identical data; ablations by data source and quantity."""
from __future__ import annotations

import hashlib
import json
from typing import Collection

import numpy as np
import pandas as pd
from scipy import stats

from rmbook.analysis.values import DEFAULT_PROMPTS, check_lexicon, value_profile
from rmlib import train
from rmlib import models as rm_models
from rmlib.data import value_lexicon
from rmlib.trained import local_rm_dir, read_run_file
from rmlib.stats import one_way_by, t_interval
from rmlib.storage import atomic

__all__ = ["evaluate_run", "run_name", "train_runs", "renamed_runs", "training_plan", "training_summary",
           "trajectory_runs", "evaluate_runs", "final_rows", "category_gaps", "imprint_table", "one_way_gap_anova",
           "spread", "first_to_last", "gap_correlation", "published_final_gaps", "published_quantity_change",
           "accuracy_variance_correlation"]


def _key(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _write_parquet(df: pd.DataFrame, path) -> None:
    with atomic.writing_file(path) as tmp:
        df.to_parquet(tmp)


def evaluate_run(name: str, steps: list[int] | None = None, lexicon: pd.DataFrame | None = None,
                 prompts: dict[str, str] | None = None, batch_size: int = 16, progress: bool = True, *,
                 load=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metrics, profiles) for the checkpoints of the rmlib training run `name` (all of them by default).

    metrics: run, base_model, n_pairs, step, model, accuracy, reward_var_raw, reward_var_whitened, reward_sd,
    n_test, n_prompts. profiles: value_profile rows plus run, base_model, n_pairs, step. Each checkpoint's results
    are cached in its folder, so a rebuilt chapter only re-reads them; each checkpoint is loaded, evaluated and let
    go (not kept in the process-wide model cache: a chapter evaluates dozens). ``load``: a
    :class:`rmlib.models.LoadOptions` for the checkpoints.
    """

    res = train.load_run(name)
    run = res.run
    available = res.checkpoints
    steps = available if steps is None else list(steps)
    missing = sorted(set(steps) - set(available))
    if missing:
        raise train.EvalError(f"run {name!r} has no checkpoint(s) at step(s) {missing}; it has {available}")
    test = pd.read_parquet(res.run_dir / "test_pairs.parquet")
    lexicon = value_lexicon("big2") if lexicon is None else check_lexicon(lexicon)
    prompts = prompts or DEFAULT_PROMPTS
    key = _key({"lex": lexicon[["word", "category"]].values.tolist(), "prompts": prompts,
                "dtype": load.dtype if load else None, "test": run["test_hash"]})
    metrics, profiles = [], []
    with rm_models.sharing_bases():  # the checkpoints share their base's frozen tensors, loaded once (#61)
        for step in steps:
            m, p = _evaluate_checkpoint(name, step, run, test, lexicon, prompts, key, batch_size, progress, load)
            metrics.append(m)
            profiles.append(p)
    return pd.concat(metrics, ignore_index=True), pd.concat(profiles, ignore_index=True)


def _evaluate_checkpoint(name: str, step: int, run: dict, test: pd.DataFrame, lexicon: pd.DataFrame, prompts: dict,
                         key: str, batch_size: int, progress: bool, load) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metrics, profile) of one checkpoint of :func:`evaluate_run`, from its folder's cache or computed and cached."""
    folder = local_rm_dir(name, step)
    meta = read_run_file(folder, f"local:{name}@step{step}")
    if meta.get("run_hash") != run["run_hash"]:
        raise train.EvalError(f"{folder} belongs to another run (run_hash {meta.get('run_hash')}); retrain {name!r}")
    cache_m, cache_p = folder / f"eval-{key}-metrics.parquet", folder / f"eval-{key}-profile.parquet"
    if cache_m.exists() and cache_p.exists():
        return pd.read_parquet(cache_m), pd.read_parquet(cache_p)
    lm = rm_models.load_model(f"local:{name}@step{step}", load)
    scored = train.score_pairs(lm, test, run["max_len"], batch_size=batch_size, progress=progress)
    ids = {"run": name, "base_model": run["base_model"], "n_pairs": run["n_pairs"], "step": step, "model": lm.spec.id}
    m = pd.DataFrame([{**ids, "accuracy": train.pairwise_accuracy(scored), **train.reward_variance(scored),
                       "n_test": len(scored)}])
    p = value_profile(lm, lexicon, prompts, progress=progress).assign(**{k: v for k, v in ids.items() if k != "model"})
    del lm
    _write_parquet(m, cache_m)
    _write_parquet(p, cache_p)
    return m, p


def run_name(base: str, sources, seed: int, n_pairs: int, steps, batch_size: int, tuning: str) -> str:
    """The local RM name of one run: everything that tells two runs apart, so a rerun finds its checkpoints
    (``tuning``: which weights train, :data:`rmlib.train.TUNINGS`)."""
    return f"ft-{base}-{'+'.join(sources)}-n{n_pairs}-s{seed}-{steps}x{batch_size}-{tuning}"


def train_runs(configs: dict, progress: bool = True) -> dict:
    """Train, or reuse, every planned run (``configs``: plan key -> :class:`rmlib.train.TrainConfig`), each under its
    own name (:func:`rmlib.train.own_name`): a rerun of the chapter with another learning rate, length, precision or
    layer count meets the earlier runs under the same names, and trains under the names with their run hash rather
    than stopping. Returns plan key -> :class:`rmlib.train.TrainResult`."""
    out = {}
    for key, cfg in configs.items():
        cfg, _ = train.own_name(cfg, train.train_data_hash(cfg))
        out[key] = train.train(cfg, progress=progress)
    return out


def renamed_runs(configs: dict, runs: dict) -> list[str]:
    """The names of the runs that :func:`train_runs` stored under another name than planned (their run hash added)."""
    return [runs[key].name for key, cfg in configs.items() if runs[key].name != cfg.name]


def training_plan(bases, sources, seeds, n_pairs: int, ablation_sources=(), quantity_pairs=()) -> list[tuple]:
    """(base, sources, seed, n_pairs) of every run: each base and seed on ``sources``; the first base on each
    ablation source; the first base and seed at each other training-set size."""
    plan = [(b, tuple(sources), s, n_pairs) for b in bases for s in seeds]
    plan += [(bases[0], (src,), s, n_pairs) for src in ablation_sources for s in seeds]
    plan += [(bases[0], tuple(sources), seeds[0], n) for n in quantity_pairs if n != n_pairs]
    return plan


def training_summary(runs: dict) -> pd.DataFrame:
    """One row per trained run (``runs``: plan key -> :class:`rmlib.train.TrainResult`): its data hash, steps, share of
    truncated pairs, and the mean loss of the first and the last quarter of the steps."""
    return pd.DataFrame([{"base": b, "sources": "+".join(src), "seed": s, "n_pairs": n, "run": r.name,
                          "steps": r.steps, "data_hash": r.run["data_hash"],
                          "share_truncated": r.run["share_truncated"],
                          "first_loss": r.log["loss"].head(max(1, len(r.log) // 4)).mean(),
                          "last_loss": r.log["loss"].tail(max(1, len(r.log) // 4)).mean()}
                         for (b, src, s, n), r in runs.items()])


def trajectory_runs(plan, sources, n_pairs: int, seed: int) -> list[tuple]:
    """The plan keys evaluated at every checkpoint: the main runs (all bases on ``sources`` with ``n_pairs``) of one
    seed; the other runs are evaluated at their last step only, to save time."""
    return [k for k in plan if k[2] == seed and "+".join(k[1]) == "+".join(sources) and k[3] == n_pairs]


def evaluate_runs(runs: dict, lexicon: pd.DataFrame, every_step: Collection[tuple]
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`evaluate_run` for every run: at every checkpoint for the keys in ``every_step`` (the trajectories),
    else at its last step only. Returns (metrics, profiles), each with the run's sources and seed."""
    with rm_models.sharing_bases():  # one base held across runs; the runs of a base evaluated together (#61)
        by_base = sorted(runs, key=lambda k: runs[k].run["base_model"])
        evals = {key: evaluate_run(runs[key].name, steps=None if key in every_step else [runs[key].steps],
                                   lexicon=lexicon) for key in by_base}
    evals = {key: evals[key] for key in runs}
    metrics = pd.concat([m.assign(sources="+".join(k[1]), seed=k[2]) for k, (m, p) in evals.items()], ignore_index=True)
    profiles = pd.concat([p.assign(sources="+".join(k[1]), seed=k[2]) for k, (m, p) in evals.items()], ignore_index=True)
    return metrics, profiles


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of each run's last evaluated step."""
    return df[df["step"] == df.groupby("run")["step"].transform("max")]


def category_gaps(profiles: pd.DataFrame, by: list[str], first: str, second: str) -> pd.DataFrame:
    """The profile gap per ``by`` x prompt: median rank share of ``first`` minus that of ``second`` (negative: the
    first category ranks higher)."""
    w = profiles.pivot_table(index=by + ["prompt_label"], columns="category", values="median_rank_share").reset_index()
    return w.assign(gap=w[first] - w[second])[by + ["prompt_label", "gap"]]


def imprint_table(rm_gap: pd.DataFrame, lm_gap: pd.DataFrame) -> pd.DataFrame:
    """Per base x prompt: the trained RMs' mean gap across seeds with its SD, n and 95% t interval (NaN for one seed),
    the base LM's gap, and whether the RM orders the two categories the same way as its base."""
    imprint = rm_gap.merge(lm_gap, on=["base_model", "prompt_label"])
    agg = imprint.groupby(["base_model", "prompt_label"]).agg(
        rm_gap=("gap", "mean"), sd=("gap", "std"), n_seeds=("gap", "size"), base_lm_gap=("base_lm_gap", "first")
    ).reset_index()
    agg["ci_low"], agg["ci_high"] = t_interval(agg["rm_gap"], agg["sd"], agg["n_seeds"])
    agg["same_sign_as_base"] = np.sign(agg["rm_gap"]) == np.sign(agg["base_lm_gap"])
    return agg


def one_way_gap_anova(gaps: pd.DataFrame, factor: str) -> pd.DataFrame:
    """One-way ANOVA of the gap on ``factor`` (base or source) per prompt, seeds as replicates."""
    return one_way_by(gaps, value="gap", factor=factor, by="prompt_label")


def spread(df: pd.DataFrame, value: str, by: str = "prompt_label") -> pd.Series:
    """Max minus min of ``value`` within each ``by`` level: how far apart the bases (or sources) put the gap."""
    return df.groupby(by)[value].agg(lambda g: g.max() - g.min())


def first_to_last(gaps: pd.DataFrame, order: str, by: list[str]) -> pd.DataFrame:
    """How much the gap moved from the first to the last ``order`` value (e.g. step) within each ``by`` group."""
    return gaps.sort_values(order).groupby(by)["gap"].agg(lambda s: s.iloc[-1] - s.iloc[0]).reset_index()


def gap_correlation(gaps: pd.DataFrame, x: str, by: str = "prompt_label") -> pd.Series:
    """Spearman's rho between ``x`` (e.g. the number of training pairs) and the gap within each ``by`` level; NaN
    where the gap is constant."""
    return gaps.groupby(by).apply(
        lambda d: stats.spearmanr(d[x], d["gap"])[0] if d["gap"].nunique() > 1 else float("nan"),
        include_groups=False)


def published_final_gaps(ranks: pd.DataFrame) -> pd.DataFrame:
    """The authors' final checkpoints (:func:`rmlib.data.load_checkpoint_ranks`): median rank per category per run,
    and Agency minus Communion."""
    out = ranks[ranks["final"]].pivot_table(index=["data_source", "quantity_k", "method", "base_family"],
                                            columns="category", values="median_rank").reset_index()
    out["agency_minus_communion"] = out["Agency"] - out["Communion"]
    return out


def published_quantity_change(final: pd.DataFrame, data_source: str = "ultrafeedback", method: str = "BT") -> pd.Series:
    """Per base family: Agency minus Communion at the largest minus at the smallest training set of one source."""
    sub = final[(final["data_source"] == data_source) & (final["method"] == method)]
    return sub.groupby("base_family").apply(
        lambda d: d.sort_values("quantity_k")["agency_minus_communion"].iloc[-1]
        - d.sort_values("quantity_k")["agency_minus_communion"].iloc[0], include_groups=False)


def accuracy_variance_correlation(metrics: pd.DataFrame) -> tuple[float, float]:
    """Spearman's rho (and p) between held-out accuracy and whitened reward variance over checkpoints; NaN when
    fewer than 3 checkpoints or either column is constant."""
    if len(metrics) >= 3 and metrics["accuracy"].nunique() > 1 and metrics["reward_var_whitened"].nunique() > 1:
        rho, p = stats.spearmanr(metrics["accuracy"], metrics["reward_var_whitened"])
        return rho, p
    return float("nan"), float("nan")
