"""The fine-tuning chapter's analyses: every checkpoint of a training run evaluated on held-out pairs and profiled
on a value lexicon; the base model's imprint on identical data; ablations by data source and quantity."""
from __future__ import annotations

import hashlib
import json

import pandas as pd
import yaml

from rmlib.analysis.values import DEFAULT_PROMPTS, check_lexicon, value_profile
from rmlib.data import value_lexicon
from rmlib.registry import RUN_FILE, local_rm_dir
from rmlib.storage import atomic

__all__ = ["evaluate_run"]


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
    from rmlib.models import load_model
    from rmlib.train import EvalError, load_run, pairwise_accuracy, reward_variance, score_pairs

    res = load_run(name)
    run = res.run
    available = res.checkpoints
    steps = available if steps is None else list(steps)
    missing = sorted(set(steps) - set(available))
    if missing:
        raise EvalError(f"run {name!r} has no checkpoint(s) at step(s) {missing}; it has {available}")
    test = pd.read_parquet(res.run_dir / "test_pairs.parquet")
    lexicon = value_lexicon("big2") if lexicon is None else check_lexicon(lexicon)
    prompts = prompts or DEFAULT_PROMPTS
    key = _key({"lex": lexicon[["word", "category"]].values.tolist(), "prompts": prompts,
                "dtype": load.dtype if load else None, "test": run["test_hash"]})
    metrics, profiles = [], []
    for step in steps:
        folder = local_rm_dir(name, step)
        meta = yaml.safe_load((folder / RUN_FILE).read_text())
        if meta.get("run_hash") != run["run_hash"]:
            raise EvalError(f"{folder} belongs to another run (run_hash {meta.get('run_hash')}); retrain {name!r}")
        cache_m, cache_p = folder / f"eval-{key}-metrics.parquet", folder / f"eval-{key}-profile.parquet"
        if cache_m.exists() and cache_p.exists():
            metrics.append(pd.read_parquet(cache_m))
            profiles.append(pd.read_parquet(cache_p))
            continue
        lm = load_model(f"local:{name}@step{step}", load)
        scored = score_pairs(lm, test, run["max_len"], batch_size=batch_size, progress=progress)
        ids = {"run": name, "base_model": run["base_model"], "n_pairs": run["n_pairs"], "step": step,
               "model": lm.spec.id}
        m = pd.DataFrame([{**ids, "accuracy": pairwise_accuracy(scored), **reward_variance(scored),
                           "n_test": len(scored)}])
        p = value_profile(lm, lexicon, prompts, progress=progress).assign(**{k: v for k, v in ids.items()
                                                                             if k != "model"})
        del lm
        _write_parquet(m, cache_m)
        _write_parquet(p, cache_p)
        metrics.append(m)
        profiles.append(p)
    return pd.concat(metrics, ignore_index=True), pd.concat(profiles, ignore_index=True)
