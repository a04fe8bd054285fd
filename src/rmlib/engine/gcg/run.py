"""`gcg`: multi-token optima and pessima of a reward model (or an LM's implicit reward) by GCG search, with restarts,
stored like sweeps.

A result is one row per restart and step (:func:`rmlib.engine.gcg.search.run_restart`). Each restart is one
self-certifying Parquet shard under ``<cache>/gcg/<key>`` (:class:`rmlib.storage.ShardStore`), written when the restart
ends, so a killed run resumes at the first unfinished restart, and a finished one is served from the cache after
every byte is checked. Restart r draws its start and its samples from ``numpy.random.default_rng([seed, r])``, so a
resumed run gives the rows an uninterrupted one gives.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from rmlib import costs
from rmlib.config import progress_bar
from rmlib.data.kinds import LM_LOGPROB, RM_SCORE
from rmlib.engine.checks import candidate_ids, check_batch_size, check_finite, check_length, resolve_model
from rmlib.engine.gcg.objective import DIRECTIONS, GCGError, Objective
from rmlib.engine.gcg.search import GCGConfig, Vocabulary, run_restart
from rmlib.engine.kernels import supports_shared_prefix
from rmlib.engine.store import cache_parent, digest, finish, model_settings, open_store, run_fields
from rmlib.models.templates import answer_slot
from rmlib.storage import sweep_key

__all__ = ["gcg", "GCGResult", "ALGORITHM"]

ALGORITHM = "gcg-1"  # bump when the search itself changes (sampling, filtering, buffer): it is part of the key
FRAME_VERSION = 2  # the columns of a stored restart (2: the objective is `reward`, as in every frame); in the key


@dataclass
class GCGResult:
    """``frame``: one row per restart and step; ``meta``: the settings on disk; ``cached``: served from the cache;
    ``seconds`` and ``n_scored``: the time this call spent searching and the candidates it scored (0 when cached)."""

    frame: pd.DataFrame
    meta: dict
    cached: bool
    seconds: float = 0.0
    n_scored: int = 0

    def optima(self) -> pd.DataFrame:
        """The best response of each restart (its last step), best first in the search's direction."""
        last = self.frame[self.frame["step"] == self.frame["step"].max()]
        return last.sort_values("reward", ascending=self.meta["direction"] == "min", kind="stable")


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise GCGError(f"{name} must be an integer >= {low}, not {value!r}")
    return int(value)


def _checked_settings(length, direction, steps, restarts, seed, config, init) -> tuple:
    """The search's settings as integers and a :class:`GCGConfig`, or a :class:`GCGError` that names the bad one,
    before any model is loaded."""
    length = _check_int("length", length, 1)
    if direction not in DIRECTIONS:
        raise GCGError(f"direction must be one of {sorted(DIRECTIONS)}, not {direction!r}")
    steps, restarts, seed = _check_int("steps", steps, 0), _check_int("restarts", restarts, 1), _check_int("seed", seed, 0)
    config = config if config is not None else GCGConfig()
    if not isinstance(config, GCGConfig):
        raise GCGError(f"config must be a GCGConfig, not {type(config).__name__}")
    if config.n_replace > length:
        raise GCGError(f"n_replace={config.n_replace} positions replaced per candidate, but a response has only "
                       f"length={length} positions: give n_replace <= length")
    if init is not None and (not isinstance(init, str) or not init.strip()):
        raise GCGError(f"init must be a non-blank string or None, not {init!r}")
    return length, steps, restarts, seed, config


def _key_and_meta(lm, slot, vocab, settings: dict, kind: str, batch_size) -> tuple[str, dict]:
    """The cache key of a search (every setting that changes its rows) and the ``meta`` that describes it."""
    key_params = {"algorithm": ALGORITHM, "frame": FRAME_VERSION, "model": lm.spec.id, "revision": lm.revision,
                  "kind": lm.head, "dtype": str(lm.dtype), "prompt": settings["prompt"], "template": slot.template_hash,
                  **{k: settings[k] for k in ("length", "direction", "steps", "restarts", "seed", "init", "config")},
                  "candidates": digest(vocab.ids), "untrained_head": lm.untrained_head,
                  "head_seed": lm.seed if lm.untrained_head else None, **model_settings(lm)}
    key = sweep_key(key_params)
    meta = {"key": key, "model": lm.spec.id, "revision": lm.revision, "kind": lm.head, "reward_kind": kind,
            "prompt": settings["prompt"], "template_hash": slot.template_hash,
            **{k: settings[k] for k in ("length", "direction", "steps", "restarts", "seed", "init", "config")},
            "algorithm": ALGORITHM, "n_candidates": int(len(vocab.ids)), "candidates": key_params["candidates"],
            "dtype": str(lm.dtype).removeprefix("torch."), "untrained_head": lm.untrained_head,
            "head_seed": key_params["head_seed"], **run_fields(lm, batch_size)}
    return key, meta


@costs.phase("search")
def gcg(model, prompt: str, *, length: int = 4, direction: str = "max", steps: int = 50, restarts: int = 4,
        seed: int = 0, init: str | None = None, config: GCGConfig | None = None, tokens=None,
        batch_size: int | None = None, cache: bool = True, progress: bool = True, cache_root=None,
        load=None) -> GCGResult:
    """Search ``length``-token responses to ``prompt`` that maximise (``direction='max'``) or minimise the reward.

    ``model`` is a LoadedModel or an id (loaded once per process with ``load``, a :class:`rmlib.models.LoadOptions`).
    A reward model's reward is its score of the whole templated conversation; a language model's is the summed
    log-prob of the response (an implicit reward), as :func:`rmlib.engine.score_answers` computes them. ``init``: a
    start string of exactly ``length`` tokens (default: random admissible tokens per restart). ``config``: top-k,
    search width, positions replaced, buffer size (:class:`GCGConfig`). ``tokens``: a vocabulary slice or id list to
    search over (default: all; special and chat-control tokens are always left out).

    Returns a :class:`GCGResult`; its frame has one row per restart and step: model, prompt, reward_kind, direction,
    length, restart, step, reward (of the best response so far), ids, text, tokens (each id's text),
    step_reward, n_scored,
    n_rejected, n_seen. The cache key holds every setting that changes the rows (model and revision, prompt,
    template, length, direction, steps, restarts, seed, start, config, searched ids, dtype, ...); batch size and
    device are recorded per shard, not keyed, as for sweeps.
    """
    length, steps, restarts, seed, config = _checked_settings(length, direction, steps, restarts, seed, config, init)
    check_batch_size(batch_size)
    lm = resolve_model(model, load)
    slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)  # refuses prompts with template markers
    total = len(slot.prefix_ids) + length + (len(slot.suffix_ids) if lm.head == "rm" else 0)
    check_length(lm, total, f"a {length}-token response to {prompt[:60]!r}")
    if not supports_shared_prefix(lm, total):
        raise GCGError(f"{lm.spec.id}: GCG needs transformers' own attention modules and a scalar head it can read "
                       "(logits[:, 0]); models that run their own code, and conversations longer than a sliding "
                       "window, are not supported")
    vocab = Vocabulary(lm.tokenizer, lm.model.get_input_embeddings().weight.shape[0], candidate_ids(lm, tokens),
                       lm.chat_template)
    init_ids = None
    if init is not None:
        init_ids = lm.tokenizer(init, add_special_tokens=False).input_ids
        vocab.start(length, np.random.default_rng(0), init_ids)  # checked now, before anything is computed
    kind = RM_SCORE if lm.head == "rm" else LM_LOGPROB
    settings = {"prompt": prompt, "length": length, "direction": direction, "steps": steps, "restarts": restarts,
                "seed": seed, "init": init, "config": asdict(config)}
    key, meta = _key_and_meta(lm, slot, vocab, settings, kind, batch_size)
    target = cache_parent(cache_root, "gcg") / key
    store, df = open_store(target.parent, key, meta, cache)
    if df is not None:
        return GCGResult(df, df.attrs["rmlib"], cached=True)
    objective = Objective(lm, slot, direction, batch_size)
    objective.check_embedding(vocab.ids[:8])
    t0 = time.perf_counter()
    try:
        n_scored = _run_restarts(store, objective, vocab, config, settings, kind, init_ids, progress)
        seconds = time.perf_counter() - t0
        df = finish(store, target, restarts, restarts * (steps + 1))
    finally:
        if store.root != target:  # a cache=False run that did not publish
            shutil.rmtree(store.root, ignore_errors=True)
    return GCGResult(df, df.attrs["rmlib"], cached=False, seconds=seconds, n_scored=n_scored)


def _run_restarts(store, objective: Objective, vocab: Vocabulary, config: GCGConfig, settings: dict, kind: str,
                  init_ids, progress: bool) -> int:
    """Run the restarts not yet stored, each into its own shard as it ends; the candidates they scored."""
    lm, length, steps, restarts = objective.lm, settings["length"], settings["steps"], settings["restarts"]
    todo = [r for r in range(restarts) if not store.valid_shard(r, steps + 1)]
    bar = progress_bar(total=len(todo) * (steps + 1), progress=progress, unit="step",
                       desc=f"gcg {settings['direction']} n={length} {lm.spec.nickname or lm.spec.id}")
    n_scored = 0
    for r in todo:
        bar.set_postfix_str(f"restart {r + 1}/{restarts}")
        rows = run_restart(objective, vocab, length, steps, config, np.random.default_rng([settings["seed"], r]),
                           init_ids, on_step=lambda: bar.update(1))
        frame = pd.DataFrame({"model": lm.spec.id, "prompt": settings["prompt"], "reward_kind": kind,
                              "direction": settings["direction"], "length": length, "restart": r,
                              **pd.DataFrame(rows).to_dict("list")})
        check_finite(frame, ["reward"], f"{lm.spec.id}, restart {r}")
        n_scored += int(frame["n_scored"].sum())
        store.write_shard(r, frame)
    bar.close()
    return n_scored
