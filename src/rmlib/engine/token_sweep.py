"""Score every token of a vocabulary as the one-token answer to a prompt: the exhaustive sweep.

Id-exact mode puts each candidate *id* between the template's prefix and suffix ids, runs the prefix once and shares
its keys/values across the batch (:mod:`rmlib.engine.kernels`). Paper mode keeps the original pipeline (decode id
to text, re-render, re-tokenise with defaults, pad) so published numbers can be reproduced, double BOS included.
Results stream to resumable, verified Parquet shards (:mod:`rmlib.engine.store`).
"""
from __future__ import annotations

import math
import os
import shutil
import sys
import time

import numpy as np
import pandas as pd
import torch

from rmlib import costs
from rmlib.config import progress_bar
from rmlib.engine.checks import (SweepError, auto_batch_size, candidate_ids, check_batch_size, check_finite,
                                 check_length, resolve_model)
from rmlib.engine.kernels import (prefix_kv, rm_scores_full, rm_scores_paper, rm_scores_shared,
                                  rm_scores_shared_compiled, supports_shared_prefix)
from rmlib.engine.store import (SweepResult, cache_parent, dated_fields, digest, finish, model_settings, open_store,
                                run_fields)
from rmlib.models.templates import answer_slot
from rmlib.storage import ShardStore, claims, sweep_key

__all__ = ["sweep", "SweepResult", "CHUNK", "MODES"]

# Candidates per shard: the most a crash can cost. RMLIB_SWEEP_CHUNK changes it for every process started after it
# is set (Ray workers included): the tests' way to give a tiny vocabulary several shards. Scores do not depend on it.
CHUNK = int(os.environ.get("RMLIB_SWEEP_CHUNK") or 4096)
MODES = ("id_exact", "paper")


@costs.phase("sweep")
def sweep(model, prompt: str, *, tokens=None, mode: str = "id_exact", method: str = "auto",
          batch_size: int | None = None, cache: bool = True, progress: bool = True,
          cache_root=None, compile: bool = False, load=None) -> SweepResult:
    """Score every candidate token as the one-token answer to `prompt`.

    `model` is a LoadedModel or an id (loaded once per process with `load`, a :class:`rmlib.models.LoadOptions`;
    sweep options and loading options are kept apart). RMs give one `score` per token; LMs give
    the next-token `logit` and `logprob` (log-softmax) at the answer slot.
    Returns one row per (model, prompt, token_id) with the decoded token.

    Caching: the key holds everything that can change a score (model and the revision of its weights, prompt, chat
    template, mode, kind, method, dtype, compile, attention kernel, how the score is read, candidate ids, seed of an
    untrained head); `meta` describes the data on disk. Batch size and device are not in the key: a row's score does
    not depend on the other rows of its batch, so they change float rounding only (in bf16 on CPU the tiny models of
    tests/test_cache.py, and SmolLM2 with a random head on 512 tokens, give bit-identical scores at batch sizes from
    1 to 512, while the two methods differ by up to 0.047 on SmolLM2, sd 0.23), and keying them would make a GPU's
    memory-dependent automatic batch size miss the cache on every run; each shard records the batch size and device
    it was computed with. `cache=False` recomputes everything and then replaces the cached result in one rename.

    `compile=True` (id-exact RM sweeps with the shared prefix only) runs the batches through `torch.compile`
    with one fixed batch shape. Off by default: on 2 CPU cores it compiles for ~70 s and then runs ~10-15%
    faster, a net loss for a 49k-token vocabulary (see benchmarks/README.md). In bf16 fused kernels round
    differently, so scores differ from eager ones by bf16 rounding, and they are cached under their own key.
    """
    if mode not in MODES:
        raise SweepError(f"mode must be one of {MODES}, not {mode!r}")
    check_batch_size(batch_size)
    lm = resolve_model(model, load)
    kind = lm.head
    if kind == "lm" and mode == "paper":
        raise SweepError("paper mode reproduces the RM pipeline; LM log-probs are always id-exact")
    slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)
    ids = candidate_ids(lm, tokens)
    total = len(slot.prefix_ids) + 1 + len(slot.suffix_ids)
    check_length(lm, total if kind == "rm" else len(slot.prefix_ids), f"the prompt {prompt[:60]!r}")
    method = _method(lm, kind, method, total)
    seq_len = 1 + len(slot.suffix_ids) if method == "shared_prefix" else total
    bs = batch_size or auto_batch_size(lm, seq_len)
    if compile and not (kind == "rm" and method == "shared_prefix" and mode == "id_exact"):
        raise SweepError(f"compile=True needs an id-exact RM sweep with the shared prefix, not kind={kind!r}, "
                         f"method={method!r}, mode={mode!r}")
    key, meta = _key_and_meta(lm, prompt, slot, ids, mode, kind, method, compile, bs)
    target = cache_parent(cache_root, "sweeps") / key
    store, df = open_store(target.parent, key, meta, cache)
    if df is not None and digest(df.token_id.to_numpy()) == meta["candidates"]:
        return SweepResult(df, df.attrs["rmlib"], cached=True)
    try:
        df = _sweep_into(store, lm, slot, ids, kind, method, mode, bs, compile, progress)
        df = finish(store, target, math.ceil(len(ids) / CHUNK), len(ids))
    finally:
        if store.root != target:  # a cache=False run that did not publish
            shutil.rmtree(store.root, ignore_errors=True)
    if digest(df.token_id.to_numpy()) != meta["candidates"]:
        raise SweepError(f"{target}: the token ids on disk are not the ones asked for; delete the folder and rerun")
    return SweepResult(df, df.attrs["rmlib"], cached=False)


def _method(lm, kind: str, method: str, total: int) -> str:
    """The kernel a sweep runs: an LM's log-probs come from one forward pass of the prompt (``prefix_logits``); an
    RM runs the shared prefix where the model supports it (``auto``), or every sequence in full."""
    if method not in ("auto", "shared_prefix", "full"):
        raise SweepError(f"method must be auto, shared_prefix or full, not {method!r}")
    if kind == "lm":
        if method != "auto":
            raise SweepError(f"method={method!r} applies to RM sweeps; an LM's log-probs for every token come from "
                             "one forward pass of the prompt, so there is nothing to choose")
        return "prefix_logits"
    if method == "auto":
        return "shared_prefix" if supports_shared_prefix(lm, total) else "full"
    return method


def _key_and_meta(lm, prompt, slot, ids, mode, kind, method, compile, bs) -> tuple[str, dict]:
    """The sweep's cache key (everything that can change a score, :func:`sweep`) and the ``meta`` that describes
    the data on disk (its ``candidates``: the digest of the candidate ids)."""
    key_params = {"model": lm.spec.id, "revision": lm.revision, "prompt": prompt, "template": slot.template_hash,
                  "mode": mode, "kind": kind, "method": method, "compiled": bool(compile), "dtype": str(lm.dtype),
                  "candidates": digest(ids), "untrained_head": lm.untrained_head,
                  "seed": lm.seed if lm.untrained_head else None, **model_settings(lm),
                  **dated_fields(slot.template, [slot]),
                  # paper sweeps cached before #40 read the pad answer at its end of turn: never serve them
                  **({"paper_reading": "before_first_pad"} if mode == "paper" else {})}
    key = sweep_key(key_params)
    meta = {"key": key, "model": lm.spec.id, "revision": lm.revision, "prompt": prompt,
            "template_hash": slot.template_hash, "mode": mode, "kind": kind, "method": method,
            "compiled": bool(compile), "dtype": str(lm.dtype).removeprefix("torch."), "n_candidates": len(ids),
            "candidates": key_params["candidates"], "untrained_head": lm.untrained_head,
            "seed": key_params["seed"], **{k: key_params[k] for k in ("rendered",) if k in key_params},
            **run_fields(lm, bs)}
    return key, meta


def _sweep_into(store: ShardStore, lm, slot, ids, kind, method, mode, bs, compile, progress) -> None:
    """Compute the shards the store lacks (all of them for a fresh store)."""
    texts = lm.tokenizer.convert_ids_to_tokens(ids.tolist())
    decoded = lm.tokenizer.batch_decode([[int(i)] for i in ids])
    special = set(lm.tokenizer.all_special_ids)
    n_chunks = math.ceil(len(ids) / CHUNK)
    todo = [c for c in range(n_chunks) if not store.valid_shard(c, len(ids[c * CHUNK:(c + 1) * CHUNK]))]
    bar = progress_bar(total=sum(len(ids[c * CHUNK:(c + 1) * CHUNK]) for c in todo), progress=progress,
               unit="tok", desc=f"{kind} sweep {lm.spec.nickname or lm.spec.id}", smoothing=0.1)
    kv = None
    prefix_out = None
    if todo and (kind == "lm" or method == "shared_prefix"):
        kv, prefix_out = prefix_kv(lm, slot.prefix_ids)

    def compute(c: int) -> None:
        lo, hi = c * CHUNK, min((c + 1) * CHUNK, len(ids))
        chunk_ids = ids[lo:hi]
        if kind == "lm":
            cols = _lm_chunk(lm, prefix_out, chunk_ids)
            bar.update(len(chunk_ids))
        else:
            cols = _rm_chunk(lm, slot, chunk_ids, decoded[lo:hi], method, mode, bs, kv, bar, compile,
                             None if prefix_out is None else prefix_out.last_hidden_state[0])
        df = pd.DataFrame({"model": lm.spec.id, "prompt": slot.prompt, "token_id": chunk_ids.astype(np.int64),
                           "token": texts[lo:hi], "text": decoded[lo:hi],
                           "is_special": [int(i) in special for i in chunk_ids], **cols})
        check_finite(df, [k for k in cols if k in ("score", "logit", "logprob")],
                     f"{lm.spec.id} (token ids {chunk_ids[:5].tolist()}...)")
        store.write_shard(c, df)

    _share_chunks(store, todo, lambda c: len(ids[c * CHUNK:(c + 1) * CHUNK]), compute, bar)
    bar.close()


def _share_chunks(store: ShardStore, todo, rows, compute, bar, poll_s: float = 0.5, say_every_s: float = 10.0,
                  say=None) -> None:
    """Compute the chunks in ``todo`` that no other writer of this key is computing (:meth:`ShardStore.claim`),
    keeping each claim's heartbeat fresh while computing, then wait for the others' chunks, saying every
    ``say_every_s`` what it waits for, and taking over any whose writer is gone, restarted or silent
    (:mod:`rmlib.storage.claims`). Two runs of one key split the work and keep one file per shard."""
    say = say or (lambda msg: print(msg, file=sys.stderr, flush=True))

    def run(c):
        try:
            with store.heartbeat(c):
                if not store.valid_shard(c, rows(c)):
                    compute(c)
                else:
                    bar.update(rows(c))
        finally:
            store.release(c)

    waiting = []
    for c in todo:
        if store.valid_shard(c, rows(c)):
            bar.update(rows(c))  # another writer finished it meanwhile
        elif store.claim(c):
            run(c)
        else:
            waiting.append(c)
    said = time.monotonic()
    while waiting:
        time.sleep(poll_s)
        for c in list(waiting):
            if store.valid_shard(c, rows(c)):
                bar.update(rows(c))
                waiting.remove(c)
            elif store.claim(c):  # its writer is gone, restarted or silent
                run(c)
                waiting.remove(c)
        if waiting and time.monotonic() - said >= say_every_s:
            said = time.monotonic()
            say(f"[rmlib] waiting for {len(waiting)} shard(s) of {store.root.name} that another writer is computing "
                f"(shard {waiting[0]}: {store.claim_holder(waiting[0])}); taken over if it stops "
                f"(process gone, or silent for {claims.SILENT_S / 60:.0f} min)")


def _rm_chunk(lm, slot, chunk_ids, decoded, method, mode, bs, kv, bar, compiled=False, prefix_hidden=None) -> dict:
    scores, extra = [], {}
    input_lists = []
    for s in range(0, len(chunk_ids), bs):
        batch = chunk_ids[s:s + bs]
        if mode == "paper":
            sc, seqs = rm_scores_paper(lm, slot.prompt, decoded[s:s + bs])
            input_lists.extend(seqs)
        elif compiled:
            sc = rm_scores_shared_compiled(lm, kv, len(slot.prefix_ids), [[int(i), *slot.suffix_ids] for i in batch], bs)
        elif method == "shared_prefix":
            sc = rm_scores_shared(lm, kv, len(slot.prefix_ids), [[int(i), *slot.suffix_ids] for i in batch],
                                  (slot.prefix_ids, prefix_hidden))
        else:
            sc = rm_scores_full(lm, [slot.ids_for([int(i)]) for i in batch])
        scores.append(sc.cpu().numpy())
        bar.update(len(batch))
    if mode == "paper":
        bos = lm.tokenizer.bos_token_id
        extra["n_bos"] = [sum(1 for t in seq[:3] if t == bos) if bos is not None else 0 for seq in input_lists]
    return {"score": np.concatenate(scores).astype(np.float32), **extra}


def _lm_chunk(lm, prefix_out, chunk_ids) -> dict:
    logits = prefix_out.logits[0, -1].float()
    logprobs = torch.log_softmax(logits, dim=-1)
    idx = torch.as_tensor(chunk_ids, device=logits.device)
    return {"logit": logits[idx].cpu().numpy(), "logprob": logprobs[idx].cpu().numpy()}

