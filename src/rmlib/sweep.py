"""Score every token of a vocabulary (or any list of answers) as the answer to a prompt.

Id-exact mode puts each candidate *id* between the template's prefix and suffix
ids, runs the prefix once and shares its keys/values across the batch
(`rmlib.prefix_attention`). Paper mode keeps the original pipeline (decode id to
text, re-render, re-tokenise with defaults, pad) so published numbers can be
reproduced, double BOS included. Results stream to resumable Parquet shards.
"""
from __future__ import annotations

import contextlib
import math
import shutil
import numbers
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from . import __version__, atomic, config
from .config import progress_enabled
from .models import CacheWarning, LoadedModel, load_model
from .prefix_attention import cache_to_kv, shared_prefix
from .shards import CorruptShardError, ShardStore, sweep_key
from .templates import AnswerSlot, answer_slot, check_answer, check_prompt, paper_text

CHUNK = 4096  # candidates per shard: the most a crash can cost
MODES = ("id_exact", "paper")


class SweepError(RuntimeError):
    pass


# ---------------------------------------------------------------- inputs

def candidate_ids(lm: LoadedModel, tokens=None) -> np.ndarray:
    """The ids to sweep: all of the tokenizer's ids by default, or a validated slice/list."""
    n_vocab = min(len(lm.tokenizer), lm.model.get_input_embeddings().weight.shape[0])
    if tokens is None:
        ids = np.arange(n_vocab)
    else:
        if isinstance(tokens, slice):
            tokens = range(*tokens.indices(n_vocab)) if tokens.stop is not None else range(tokens.start or 0, n_vocab)
        tokens = list(tokens)
        not_int = [t for t in tokens if isinstance(t, bool) or not isinstance(t, numbers.Integral)]
        if not_int:
            raise SweepError(f"token ids must be integers, got {not_int[:5]} ({type(not_int[0]).__name__}); "
                             "a float id would be truncated to another token. Convert them with int() / .astype(int)")
        ids = np.asarray(tokens, dtype=np.int64)
    if ids.size == 0:
        raise SweepError("the vocabulary slice is empty; give at least one token id")
    bad = ids[(ids < 0) | (ids >= n_vocab)]
    if bad.size:
        raise SweepError(f"token ids out of range [0, {n_vocab}) for {lm.spec.id}: {bad[:5].tolist()}")
    if np.unique(ids).size != ids.size:
        raise SweepError("the vocabulary slice repeats token ids")
    return ids


def check_batch_size(batch_size) -> None:
    """None (automatic) or a positive integer; 0, negatives and floats are refused, not silently replaced."""
    if batch_size is None:
        return
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise SweepError(f"batch_size must be a positive integer or None (automatic), not {batch_size!r}")


def check_length(lm: LoadedModel, n_tokens: int, what: str) -> None:
    """Refuse a conversation longer than the model's context (it would silently read positions never trained)."""
    limit = lm.max_length
    if limit is not None and n_tokens > limit:
        raise SweepError(f"{what} is {n_tokens} tokens with the chat template, but {lm.spec.id} takes at most "
                         f"{limit} tokens; shorten it")


def check_finite(df: pd.DataFrame, columns, what: str) -> None:
    """NaN and +-inf scores are refused before anything is written (they would poison every rank and mean)."""
    values = df[list(columns)].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values).all(axis=1)
    if bad.any():
        kinds = sorted({"NaN" if np.isnan(v) else ("+inf" if v > 0 else "-inf")
                        for v in values[bad].ravel() if not np.isfinite(v)})
        raise SweepError(f"{int(bad.sum())} non-finite ({', '.join(kinds)}) score(s) for {what}; nothing was marked "
                         "complete. Try dtype='float32' or check the model's weights.")


def auto_batch_size(lm: LoadedModel, seq_len: int) -> int:
    """CPU: ~512 new positions a batch (GEMMs saturate there). GPU: from free memory."""
    if lm.device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(lm.device)
        cfg = lm.model.config
        hidden = getattr(cfg, "hidden_size", 4096)
        inter = getattr(cfg, "intermediate_size", 4 * hidden)
        per_row = seq_len * (6 * hidden + 3 * inter) * torch.finfo(lm.dtype).bits // 8 * 4
        return int(max(1, min(8192, 0.5 * free // max(per_row, 1))))
    return max(1, min(1024, 512 // max(seq_len, 1)))


# ---------------------------------------------------------------- scoring kernels

def _backbone_and_head(lm: LoadedModel):
    model = lm.model
    head = getattr(model, "score", None)
    if head is None or lm.spec.score != "logits0":
        return None, None
    return model.base_model, head


def supports_shared_prefix(lm: LoadedModel, total_len: int = 0) -> bool:
    """The fast path needs transformers' own attention modules (they dispatch through AttentionInterface)
    and a conversation shorter than any sliding attention window."""
    model = lm.model
    window = getattr(model.config, "sliding_window", None)
    if window and total_len > window:
        return False
    if not type(model).__module__.startswith("transformers.models."):
        return False
    attn = [m for m in model.modules() if hasattr(m, "layer_idx") and hasattr(m, "o_proj")]
    if not attn:
        return False
    if lm.head == "rm":
        return _backbone_and_head(lm)[0] is not None
    return True


@torch.inference_mode()
def _prefix_kv(lm: LoadedModel, prefix_ids):
    ids = torch.tensor([list(prefix_ids)], device=lm.device)
    base = lm.model.base_model if lm.head == "rm" else lm.model
    out = base(input_ids=ids, use_cache=True)
    return cache_to_kv(out.cache), out


def _right_pad(seqs, pad_id: int, device):
    lengths = torch.tensor([len(s) for s in seqs], device=device)
    width = int(lengths.max())
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long, device=device)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.as_tensor(s, device=device)
    return ids, lengths


class _LastRowMLP(torch.nn.Module):
    """The last decoder layer's MLP, run on the last position only. Exact for that position (the MLP works
    position by position); the other positions get a zero MLP output, and their final hidden states are never read."""

    def __init__(self, mlp):
        super().__init__()
        self.inner = mlp

    def forward(self, x):
        out = torch.zeros_like(x)
        out[:, -1:] = self.inner(x[:, -1:])
        return out


@contextlib.contextmanager
def _last_row_mlp(backbone):
    """While scoring at the last position of equal-length rows: skip the last layer's MLP at the other positions
    (SmolLM2: ~1.7% of the FLOPs, Gemma-3-270M: ~2.6%)."""
    layers = getattr(backbone, "layers", None)
    layer = layers[-1] if layers is not None and len(layers) else None
    mlp = getattr(layer, "mlp", None)
    if not isinstance(mlp, torch.nn.Module) or isinstance(mlp, _LastRowMLP):
        yield
        return
    layer.mlp = _LastRowMLP(mlp)
    try:
        yield
    finally:
        layer.mlp = mlp


@torch.inference_mode()
def _rm_scores_shared(lm: LoadedModel, kv, prefix_len: int, new_seqs) -> torch.Tensor:
    """Scores of prefix+new for each new sequence, reading at each one's last real position."""
    backbone, head = _backbone_and_head(lm)
    ids, lengths = _right_pad(new_seqs, 0, lm.device)
    pos = torch.arange(prefix_len, prefix_len + ids.shape[1], device=lm.device).expand_as(ids)
    same_length = bool((lengths == ids.shape[1]).all())
    with shared_prefix(lm.model, kv), (_last_row_mlp(backbone) if same_length else contextlib.nullcontext()):
        hidden = backbone(input_ids=ids, position_ids=pos, use_cache=False).last_hidden_state
    last = hidden[torch.arange(len(new_seqs), device=lm.device), lengths - 1]
    return head(last)[:, 0].float()


_COMPILED: dict = {}  # (id(model), batch, positions) -> compiled backbone+head, reused across sweeps


def _compiled_scorer(lm: LoadedModel, bs: int, prefix_len: int, width: int):
    """torch.compile of backbone+head for one fixed [bs, width] batch shape (dynamic=False: compiled once a sweep)."""
    key = (id(lm.model), bs, prefix_len, width)
    if key not in _COMPILED:
        backbone, head = _backbone_and_head(lm)
        pos = torch.arange(prefix_len, prefix_len + width, device=lm.device).expand(bs, width)

        def score_last(ids):
            hidden = backbone(input_ids=ids, position_ids=pos, use_cache=False).last_hidden_state
            return head(hidden[:, -1])[:, 0]

        _COMPILED.clear()  # one entry at a time: it keeps its model alive (the closure), and compiled code is large
        _COMPILED[key] = torch.compile(score_last, dynamic=False)
    return _COMPILED[key]


@torch.inference_mode()
def _rm_scores_shared_compiled(lm: LoadedModel, kv, prefix_len: int, new_seqs, bs: int) -> torch.Tensor:
    """As `_rm_scores_shared`, through a graph compiled for exactly `bs` rows: a short last batch is padded by
    repeating its last row (rows are independent, the padding is dropped). All new sequences have one length here."""
    n = len(new_seqs)
    width = len(new_seqs[0])
    if any(len(s) != width for s in new_seqs):
        raise SweepError("compiled scoring needs candidates of one length")
    ids = torch.as_tensor(new_seqs + [new_seqs[-1]] * (bs - n), device=lm.device)
    with shared_prefix(lm.model, kv), _last_row_mlp(_backbone_and_head(lm)[0]):
        return _compiled_scorer(lm, bs, prefix_len, width)(ids)[:n].float()


@torch.inference_mode()
def _rm_scores_full(lm: LoadedModel, seqs) -> torch.Tensor:
    """Plain full-sequence forward (reference path, and for models with their own code)."""
    ids, lengths = _right_pad(seqs, 0, lm.device)
    mask = (torch.arange(ids.shape[1], device=lm.device)[None] < lengths[:, None]).long()
    backbone, head = _backbone_and_head(lm)
    if backbone is not None:
        hidden = backbone(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state
        return head(hidden[torch.arange(len(seqs), device=lm.device), lengths - 1])[:, 0].float()
    # A model with its own code finds "the last token" its own way: never show it padding.
    scores = torch.empty(len(seqs), device=lm.device)
    for length in lengths.unique().tolist():
        rows = (lengths == length).nonzero()[:, 0]
        scores[rows] = _read_score(lm, lm.model(input_ids=ids[rows, :length]))
    return scores


def _read_score(lm: LoadedModel, out) -> torch.Tensor:
    if lm.spec.score == "output_score":
        return out.score.reshape(len(out.score), -1)[:, 0].float()
    return out.logits[:, 0].float()


@torch.inference_mode()
def _rm_scores_paper(lm: LoadedModel, prompt: str, texts) -> tuple[torch.Tensor, list[list[int]]]:
    tok = lm.tokenizer
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    convs = [paper_text(tok, prompt, t, lm.chat_template) for t in texts]
    batch = tok(convs, padding=True, return_tensors="pt").to(lm.device)
    out = lm.model(**batch)
    ids = [row[m.bool()].tolist() for row, m in zip(batch["input_ids"], batch["attention_mask"])]
    return _read_score(lm, out), ids


# ---------------------------------------------------------------- results

@dataclass
class SweepResult:
    frame: pd.DataFrame
    meta: dict
    cached: bool


def _model_settings(lm: LoadedModel) -> dict:
    """Loading settings that change what is computed: the attention kernel (Gemma-2 needs eager for its
    soft-capping) and how the score is read."""
    return {"attention": getattr(lm.model.config, "_attn_implementation", None), "score_read": lm.spec.score}


def _run_fields(lm: LoadedModel, batch_size) -> dict:
    """How a shard was computed without changing what was computed (recorded per shard, not in the key)."""
    import transformers
    return {"batch_size": batch_size, "device": lm.device.type, "rmlib_version": __version__,
            "torch_version": torch.__version__, "transformers_version": transformers.__version__,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def _cached_frame(store: ShardStore) -> pd.DataFrame | None:
    """The verified cached result, or None. A shard that fails its hash is moved aside, named in a warning, and
    recomputed by the caller (the rest are kept)."""
    if not store.complete:
        return None
    try:
        return store.load()
    except CorruptShardError as exc:
        warnings.warn(f"{exc}; recomputing them", CacheWarning, stacklevel=3)
        return None


def _open_store(parent: Path, key: str, meta: dict, cache: bool) -> tuple[ShardStore, pd.DataFrame | None]:
    """The store to fill, or the cached result. cache=False computes everything afresh beside the old result,
    which publish() then replaces in one rename (a kill meanwhile leaves the old result served)."""
    parent.mkdir(parents=True, exist_ok=True)
    atomic.remove_orphans(parent)  # folders of killed cache=False runs
    target = parent / key
    if not cache:
        store = ShardStore(atomic.temp_path(target), meta)
        store.prepare()
        return store, None
    store = ShardStore(target, meta)
    df = _cached_frame(store)
    if df is None:
        store.prepare()
    return store, df


def _finish(store: ShardStore, target: Path, n_shards: int, n_rows: int) -> pd.DataFrame:
    store.mark_complete(n_shards, n_rows)
    if store.root != target:
        store.publish_to(target)
    return store.load()


def _cache_parent(cache_root, default: str) -> Path:
    return Path(cache_root) if cache_root is not None else config.cache_dir() / default


def _digest(ids: np.ndarray) -> str:
    import hashlib
    return hashlib.sha256(np.ascontiguousarray(ids, dtype=np.int64).tobytes()).hexdigest()[:16]


def _resolve(model, head, **load_kwargs) -> LoadedModel:
    if isinstance(model, LoadedModel) and load_kwargs:
        raise SweepError(f"{sorted(load_kwargs)} are loading options; with a loaded model, pass them to load_model")
    return model if isinstance(model, LoadedModel) else load_model(model, head=head, **load_kwargs)


def sweep(model, prompt: str, *, tokens=None, mode: str = "id_exact", method: str = "auto",
          batch_size: int | None = None, cache: bool = True, progress: bool = True,
          cache_root=None, compile: bool = False, **load_kwargs) -> SweepResult:
    """Score every candidate token as the one-token answer to `prompt`.

    `model` is a LoadedModel or an id. RMs give one `score` per token; LMs give
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
    lm = _resolve(model, None, **load_kwargs)
    kind = lm.head
    if kind == "lm" and mode == "paper":
        raise SweepError("paper mode reproduces the RM pipeline; LM log-probs are always id-exact")
    slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)
    ids = candidate_ids(lm, tokens)
    total = len(slot.prefix_ids) + 1 + len(slot.suffix_ids)
    check_length(lm, total if kind == "rm" else len(slot.prefix_ids), f"the prompt {prompt[:60]!r}")
    if method not in ("auto", "shared_prefix", "full"):
        raise SweepError(f"method must be auto, shared_prefix or full, not {method!r}")
    if kind == "lm":
        if method != "auto":
            raise SweepError(f"method={method!r} applies to RM sweeps; an LM's log-probs for every token come from "
                             "one forward pass of the prompt, so there is nothing to choose")
        method = "prefix_logits"
    elif method == "auto":
        method = "shared_prefix" if supports_shared_prefix(lm, total) else "full"
    seq_len = 1 + len(slot.suffix_ids) if method == "shared_prefix" else total
    bs = batch_size or auto_batch_size(lm, seq_len)
    if compile and not (kind == "rm" and method == "shared_prefix" and mode == "id_exact"):
        raise SweepError(f"compile=True needs an id-exact RM sweep with the shared prefix, not kind={kind!r}, "
                         f"method={method!r}, mode={mode!r}")
    key_params = {"model": lm.spec.id, "revision": lm.revision, "prompt": prompt, "template": slot.template_hash,
                  "mode": mode, "kind": kind, "method": method, "compiled": bool(compile), "dtype": str(lm.dtype),
                  "candidates": _digest(ids), "untrained_head": lm.untrained_head,
                  "seed": lm.seed if lm.untrained_head else None, **_model_settings(lm)}
    key = sweep_key(key_params)
    meta = {"key": key, "model": lm.spec.id, "revision": lm.revision, "prompt": prompt,
            "template_hash": slot.template_hash, "mode": mode, "kind": kind, "method": method,
            "compiled": bool(compile), "dtype": str(lm.dtype).removeprefix("torch."), "n_candidates": len(ids),
            "candidates": key_params["candidates"], "untrained_head": lm.untrained_head,
            "seed": key_params["seed"], **_run_fields(lm, bs)}
    target = _cache_parent(cache_root, "sweeps") / key
    store, df = _open_store(target.parent, key, meta, cache)
    if df is not None and _digest(df.token_id.to_numpy()) == key_params["candidates"]:
        return SweepResult(df, df.attrs["rmlib"], cached=True)
    try:
        df = _sweep_into(store, lm, slot, ids, kind, method, mode, bs, compile, progress)
        df = _finish(store, target, math.ceil(len(ids) / CHUNK), len(ids))
    finally:
        if store.root != target:  # a cache=False run that did not publish
            shutil.rmtree(store.root, ignore_errors=True)
    if _digest(df.token_id.to_numpy()) != key_params["candidates"]:
        raise SweepError(f"{target}: the token ids on disk are not the ones asked for; delete the folder and rerun")
    return SweepResult(df, df.attrs["rmlib"], cached=False)


def _sweep_into(store: ShardStore, lm, slot, ids, kind, method, mode, bs, compile, progress) -> None:
    """Compute the shards the store lacks (all of them for a fresh store)."""
    texts = lm.tokenizer.convert_ids_to_tokens(ids.tolist())
    decoded = lm.tokenizer.batch_decode([[int(i)] for i in ids])
    special = set(lm.tokenizer.all_special_ids)
    n_chunks = math.ceil(len(ids) / CHUNK)
    todo = [c for c in range(n_chunks) if not store.valid_shard(c, len(ids[c * CHUNK:(c + 1) * CHUNK]))]
    bar = tqdm(total=sum(len(ids[c * CHUNK:(c + 1) * CHUNK]) for c in todo), disable=not progress_enabled(progress),
               unit="tok", desc=f"{kind} sweep {lm.spec.nickname or lm.spec.id}", smoothing=0.1)
    kv = None
    prefix_out = None
    if todo and (kind == "lm" or method == "shared_prefix"):
        kv, prefix_out = _prefix_kv(lm, slot.prefix_ids)
    for c in todo:
        lo, hi = c * CHUNK, min((c + 1) * CHUNK, len(ids))
        chunk_ids = ids[lo:hi]
        if kind == "lm":
            cols = _lm_chunk(lm, prefix_out, chunk_ids)
            bar.update(len(chunk_ids))
        else:
            cols = _rm_chunk(lm, slot, chunk_ids, decoded[lo:hi], method, mode, bs, kv, bar, compile)
        df = pd.DataFrame({"model": lm.spec.id, "prompt": slot.prompt, "token_id": chunk_ids.astype(np.int64),
                           "token": texts[lo:hi], "text": decoded[lo:hi],
                           "is_special": [int(i) in special for i in chunk_ids], **cols})
        check_finite(df, [k for k in cols if k in ("score", "logit", "logprob")],
                     f"{lm.spec.id} (token ids {chunk_ids[:5].tolist()}...)")
        store.write_shard(c, df)
    bar.close()


def _rm_chunk(lm, slot, chunk_ids, decoded, method, mode, bs, kv, bar, compiled=False) -> dict:
    scores, extra = [], {}
    input_lists = []
    for s in range(0, len(chunk_ids), bs):
        batch = chunk_ids[s:s + bs]
        if mode == "paper":
            sc, seqs = _rm_scores_paper(lm, slot.prompt, decoded[s:s + bs])
            input_lists.extend(seqs)
        elif compiled:
            sc = _rm_scores_shared_compiled(lm, kv, len(slot.prefix_ids), [[int(i), *slot.suffix_ids] for i in batch], bs)
        elif method == "shared_prefix":
            sc = _rm_scores_shared(lm, kv, len(slot.prefix_ids), [[int(i), *slot.suffix_ids] for i in batch])
        else:
            sc = _rm_scores_full(lm, [slot.ids_for([int(i)]) for i in batch])
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


# ---------------------------------------------------------------- multi-token answers

def score_answers(model, prompts, answers, *, batch_size: int | None = None, cache: bool = True,
                  progress: bool = True, cache_root=None, **load_kwargs) -> pd.DataFrame:
    """Score multi-token answers (e.g. lexicon words) under many prompts, id-exactly.

    RMs: the reward of the whole conversation. LMs: the summed log-prob of the
    answer's tokens given the same templated prefix an RM sees (an implicit reward).
    One shard per prompt, so an interrupted run resumes prompt by prompt. Cached and verified like `sweep`
    (the same key policy; `cache=False` recomputes and replaces atomically); attrs["rmlib"] describes the data.
    """
    check_batch_size(batch_size)
    lm = _resolve(model, None, **load_kwargs)
    prompts, answers = list(prompts), list(answers)
    if not prompts or not answers:
        raise SweepError("score_answers needs at least one prompt and one answer")
    for p in prompts:
        check_prompt(lm.tokenizer, p)
    if any(not isinstance(a, str) or not a.strip() for a in answers):
        raise SweepError("answers must be non-empty strings")
    for a in answers:
        check_answer(lm.tokenizer, a)
    answer_ids = [lm.tokenizer(a, add_special_tokens=False).input_ids for a in answers]
    slots = {p: answer_slot(lm.tokenizer, p, lm.chat_template) for p in prompts}
    longest = max(range(len(answers)), key=lambda i: len(answer_ids[i]))
    for p, slot in slots.items():
        n = len(slot.prefix_ids) + len(answer_ids[longest]) + (len(slot.suffix_ids) if lm.head == "rm" else 0)
        check_length(lm, n, f"the answer {answers[longest][:40]!r} under the prompt {p[:40]!r}")
    shared = supports_shared_prefix(lm, max(len(s.prefix_ids) + len(s.suffix_ids) for s in slots.values())
                                    + len(answer_ids[longest]))
    key_params = {"model": lm.spec.id, "revision": lm.revision, "kind": lm.head, "dtype": str(lm.dtype),
                  "prompts": prompts, "answers": answers, "template": slots[prompts[0]].template_hash,
                  "method": "shared_prefix" if shared else "full", "untrained_head": lm.untrained_head,
                  "seed": lm.seed if lm.untrained_head else None, **_model_settings(lm)}
    key = sweep_key(key_params)
    meta = {"key": key, "model": lm.spec.id, "revision": lm.revision, "kind": lm.head, "mode": "id_exact",
            "method": key_params["method"], "dtype": str(lm.dtype).removeprefix("torch."),
            "template_hash": key_params["template"], "n_prompts": len(prompts), "n_answers": len(answers),
            "untrained_head": lm.untrained_head, "seed": key_params["seed"], **_run_fields(lm, batch_size)}
    target = _cache_parent(cache_root, "answers") / key
    store, df = _open_store(target.parent, key, meta, cache)
    if df is not None:
        return df
    try:
        bar = tqdm(total=len(prompts) * len(answers), disable=not progress_enabled(progress), unit="ans",
                   desc=f"{lm.head} answers {lm.spec.nickname or lm.spec.id}")
        for pi, prompt in enumerate(prompts):
            if store.valid_shard(pi, len(answers)):
                bar.update(len(answers))
                continue
            slot = slots[prompt]
            if lm.head == "lm":
                values = _lm_answer_logprobs(lm, slot, answer_ids, batch_size, shared, bar)
            else:
                values = _rm_answer_scores(lm, slot, answer_ids, batch_size, shared, bar)
            df = pd.DataFrame({"model": lm.spec.id, "prompt": prompt, "answer": answers,
                               "n_tokens": [len(a) for a in answer_ids], **values})
            check_finite(df, list(values), f"{lm.spec.id} under the prompt {prompt!r}")
            store.write_shard(pi, df)
        bar.close()
        return _finish(store, target, len(prompts), len(prompts) * len(answers))
    finally:
        if store.root != target:
            shutil.rmtree(store.root, ignore_errors=True)


def _rm_answer_scores(lm, slot, answer_ids, batch_size, shared, bar) -> dict:
    seqs = [[*a, *slot.suffix_ids] for a in answer_ids]
    bs = batch_size or auto_batch_size(lm, max(map(len, seqs)) + (0 if shared else len(slot.prefix_ids)))
    kv = _prefix_kv(lm, slot.prefix_ids)[0] if shared else None
    out = []
    for s in range(0, len(seqs), bs):
        batch = seqs[s:s + bs]
        if shared:
            out.append(_rm_scores_shared(lm, kv, len(slot.prefix_ids), batch).cpu().numpy())
        else:
            out.append(_rm_scores_full(lm, [[*slot.prefix_ids, *b] for b in batch]).cpu().numpy())
        bar.update(len(batch))
    return {"score": np.concatenate(out).astype(np.float32)}


@torch.inference_mode()
def _lm_answer_logprobs(lm, slot, answer_ids, batch_size, shared, bar) -> dict:
    """Summed log p(answer tokens | templated prefix); token k is predicted at position P-1+k."""
    P = len(slot.prefix_ids)
    kv, prefix_out = _prefix_kv(lm, slot.prefix_ids) if shared else (None, None)
    bs = batch_size or max(1, min(256, 2 ** 22 // max(lm.model.config.vocab_size, 1)))
    sums = []
    for s in range(0, len(answer_ids), bs):
        batch = answer_ids[s:s + bs]
        if shared:
            first = torch.log_softmax(prefix_out.logits[0, -1].float(), dim=-1)
            total = torch.stack([first[a[0]] for a in batch])
            ids, lengths = _right_pad(batch, 0, lm.device)
            if ids.shape[1] > 1:
                pos = torch.arange(P, P + ids.shape[1], device=lm.device).expand_as(ids)
                with shared_prefix(lm.model, kv):
                    logits = lm.model(input_ids=ids, position_ids=pos, use_cache=False).logits.float()
                logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, ids[:, 1:, None])[..., 0]
                keep = torch.arange(1, ids.shape[1], device=lm.device)[None] < lengths[:, None]
                total = total + (logp * keep).sum(1)
        else:
            ids, lengths = _right_pad([[*slot.prefix_ids, *a] for a in batch], 0, lm.device)
            mask = (torch.arange(ids.shape[1], device=lm.device)[None] < lengths[:, None]).long()
            logits = lm.model(input_ids=ids, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, P - 1:-1], dim=-1).gather(-1, ids[:, P:, None])[..., 0]
            keep = torch.arange(P, ids.shape[1], device=lm.device)[None] < lengths[:, None]
            total = (logp * keep).sum(1)
        sums.append(total.cpu().numpy())
        bar.update(len(batch))
    return {"logprob": np.concatenate(sums).astype(np.float32)}


# ---------------------------------------------------------------- audit

def roundtrip_audit(lm: LoadedModel, tokens=None) -> dict:
    """Share of ids that do not survive decode->encode, the cause of paper mode's id drift."""
    tok = lm.tokenizer
    ids = candidate_ids(lm, tokens)
    decoded = tok.batch_decode([[int(i)] for i in ids])
    encoded = tok(decoded, add_special_tokens=False).input_ids
    changed = np.array([enc != [int(i)] for i, enc in zip(ids, encoded)])
    slot = answer_slot(tok, "What is the best thing ever?", lm.chat_template)
    paper_ids = tok(paper_text(tok, slot.prompt, "x", lm.chat_template)).input_ids
    bos = tok.bos_token_id
    return {"model": lm.spec.id, "n_ids": int(len(ids)), "n_changed": int(changed.sum()),
            "share_changed": float(changed.mean()),
            "examples": [(int(i), d, e) for i, d, e, c in zip(ids, decoded, encoded, changed) if c][:10],
            "paper_mode_leading_bos": int(sum(1 for t in paper_ids[:3] if bos is not None and t == bos)),
            "id_exact_leading_bos": int(sum(1 for t in slot.prefix_ids[:3] if bos is not None and t == bos))}
