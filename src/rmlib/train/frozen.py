"""Frozen layers computed once (#61).

With ``tuning="last_n"`` a run trains only the last N decoder layers, the final norm and (Bradley-Terry) the
scalar head; a DPO run's LM head stays frozen. The embeddings and the first K = L - N layers are frozen, so their
output on a training sequence is the same at every step, in every epoch, and in every run of the same base on the
same sequence. A training step still ran them
in full (about two thirds of a SmolLM2 step's FLOPs with N = 4 of 30 layers). :class:`FrozenStates` computes the
hidden state after layer K once per token sequence, keeps it in the cache, and :func:`serving_frozen_layers` makes
the model read it instead of recomputing: the embedding's output is replaced by the cached states (a forward hook)
and the K frozen layers pass their input through. Nothing is removed from the model, so its parameters, its
checkpoints and its export (with the frozen weights' fingerprint) are those of the full model.

Equality: a real token's state after layer K does not depend on the padding of its batch (right padding, causal
attention), and the score is read at the last real token, so the loss is the full forward's up to the rounding
of batched kernels (float32: a few ulps; ``benchmarks/frozen_layers.py`` and
``tests/integration/test_train_frozen.py`` measure it). The states are computed under the same autocast as training
(bfloat16 runs autocast their matmuls; the residual stream stays float32).

Stored under ``<cache>/frozen/<key>/<part>/`` (safetensors with a sha256 manifest, checked in full before use): the
key holds the base's id and the fingerprint of its frozen weights, K, the compute precision and the device type, so
other weights, another K or another precision never share states. Each part holds the sequences that were missing
when it was written, so runs on overlapping data (a nested subsample, the same pairs in another ablation) share them.
"""
from __future__ import annotations

import contextlib
import json
from pathlib import Path

import torch
import transformers

from rmlib import config, costs
from rmlib.config import progress_bar
from rmlib.errors import RmlibError
from rmlib.storage import atomic
from rmlib.storage.integrity import check_manifest, sha256_bytes, write_manifest

__all__ = ["FrozenStatesError", "FrozenStates", "serving_frozen_layers", "decoder_layers", "frozen_layer_count"]

STATES_FILE = "states.safetensors"


class FrozenStatesError(RmlibError, RuntimeError):
    """A sequence with no frozen state, or a model whose frozen layers cannot be served from states."""


def decoder_layers(model):
    """The model's list of decoder layers (Llama, Qwen2, Gemma 2 and 3 keep them at ``model.layers``)."""
    for path in ("model.layers", "model.language_model.layers", "transformer.h"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
            return obj
        except AttributeError:
            continue
    raise FrozenStatesError(f"cannot find the decoder layers of {type(model).__name__}")


def frozen_layer_count(model) -> int:
    """K: how many decoder layers, from the first, have no trainable parameter, provided the embeddings have none
    and no dropout is active in them (a frozen layer with dropout is not the same function at every step)."""
    if any(p.requires_grad for p in model.get_input_embeddings().parameters()):
        return 0
    k = 0
    for layer in decoder_layers(model):
        if any(p.requires_grad for p in layer.parameters()):
            break
        if any(isinstance(m, torch.nn.Dropout) and m.p > 0 for m in layer.modules()):
            break
        if any(float(getattr(m, "attention_dropout", 0.0) or 0.0) > 0 for m in layer.modules()):
            break
        k += 1
    return k


def _passthrough(*args, **kwargs):
    return args[0] if args else kwargs["hidden_states"]


class FrozenStates:
    """The hidden state after the first ``k`` decoder layers of ``model``, per token sequence (right-padded
    batches, positions from 0, as TRL's preference collator builds them). ``identity``: what the frozen part is
    (the base's id and the fingerprint of its frozen weights), for the cache key; None keeps the states in memory."""

    def __init__(self, model, k: int, pad_token_id: int, identity: dict | None, autocast_dtype=None):
        if not 1 <= k <= len(decoder_layers(model)):
            raise FrozenStatesError(f"k={k} frozen layers, but the model has {len(decoder_layers(model))}")
        self.model, self.k, self.pad = model, k, int(pad_token_id)
        self.autocast_dtype = autocast_dtype
        self.states: dict[tuple, torch.Tensor] = {}
        self.computed = self.read = 0
        self.folder = None
        if identity is not None:
            # everything else that changes a state: the precision, the device, the attention kernel, the libraries
            key = {**identity, "k": k, "autocast": str(autocast_dtype), "device": self._device().type,
                   "param_dtype": str(next(model.parameters()).dtype),
                   "attention": str(getattr(model.config, "_attn_implementation", None)),
                   "torch": torch.__version__, "transformers": transformers.__version__, "format": 1}
            self.folder = config.cache_dir() / "frozen" / sha256_bytes(json.dumps(key, sort_keys=True).encode())[:24]

    def _device(self) -> torch.device:
        return next(self.model.parameters()).device

    def ensure(self, seqs, batch_size: int = 16, progress: bool = False) -> None:
        """Have a state for every sequence of ``seqs``: from memory, then the cache, then computed (and stored)."""
        need = {tuple(int(t) for t in s) for s in seqs} - self.states.keys()
        if need and self.folder is not None:
            self._read_stored(need)
            need -= self.states.keys()
        if not need:
            return
        with costs.phase("frozen"):
            new = self._compute(sorted(need, key=len), batch_size, progress)
        self.states.update(new)
        self.computed += len(new)
        if self.folder is not None:
            self._store(new)

    def _compute(self, seqs: list[tuple], batch_size: int, progress: bool) -> dict[tuple, torch.Tensor]:
        base, layers, out = self.model.base_model, decoder_layers(self.model), {}
        captured = []
        hook = layers[self.k - 1].register_forward_hook(lambda m, a, o: captured.append(o[0] if isinstance(o, tuple)
                                                                                        else o))
        device = self._device()
        try:
            with _layers_skipped(self.model, layers[self.k:]), torch.no_grad(), \
                    torch.autocast(device.type, dtype=self.autocast_dtype or torch.float32,
                                   enabled=self.autocast_dtype is not None):
                for s in progress_bar(range(0, len(seqs), batch_size), progress=progress, unit="batch",
                                      desc=f"frozen layers 1-{self.k}"):
                    batch = seqs[s:s + batch_size]
                    ids, mask = _right_padded(batch, self.pad, device)
                    captured.clear()
                    base(input_ids=ids, attention_mask=mask, use_cache=False)
                    for row, seq in enumerate(batch):
                        out[seq] = captured[0][row, :len(seq)].float().cpu().clone()
        finally:
            hook.remove()
        return out

    def _parts(self) -> list[Path]:
        return sorted(p for p in self.folder.iterdir() if p.is_dir() and not p.name.startswith(".")) \
            if self.folder.is_dir() else []

    def _read_stored(self, need: set) -> None:
        from safetensors.torch import load_file

        for part in self._parts():
            if check_manifest(part, full=True):
                continue  # damaged or half written: never served (the states are computed again)
            t = load_file(str(part / STATES_FILE))
            for row, (ids, n) in enumerate(zip(t["ids"].tolist(), t["lengths"].tolist())):
                seq = tuple(ids[:n])
                if seq in need:
                    self.states[seq] = t["states"][row, :n].clone()
                    self.read += 1

    def _store(self, new: dict[tuple, torch.Tensor]) -> None:
        from safetensors.torch import save_file

        seqs = sorted(new, key=len)
        width = max(map(len, seqs))
        states = torch.zeros(len(seqs), width, next(iter(new.values())).shape[-1])
        ids = torch.full((len(seqs), width), self.pad, dtype=torch.long)
        for row, seq in enumerate(seqs):
            states[row, :len(seq)] = new[seq]
            ids[row, :len(seq)] = torch.tensor(seq)
        digest = sha256_bytes(json.dumps([list(s) for s in seqs]).encode())[:24]
        try:
            with atomic.building_dir(self.folder / digest) as built:
                save_file({"states": states, "ids": ids, "lengths": torch.tensor([len(s) for s in seqs])},
                          str(built.path / STATES_FILE))
                write_manifest(built.path, kind="frozen layer states", k=self.k)
        except OSError:
            pass  # a full or read-only cache: the states serve this process and are computed again next time

    def lookup(self, input_ids: torch.Tensor) -> torch.Tensor:
        """The stored states of a right-padded batch, shaped as the embedding's output (padding positions: 0)."""
        rows = []
        for row in input_ids.tolist():
            seq = tuple(row)
            while seq not in self.states and seq and seq[-1] == self.pad:
                seq = seq[:-1]  # right padding; the longest sequence that matches is the one
            if seq not in self.states:
                raise FrozenStatesError(f"no frozen state for a sequence of {len(row)} tokens starting {row[:8]}: "
                                        "FrozenStates.ensure() was not given every training sequence")
            rows.append(self.states[seq])
        out = torch.zeros(len(rows), input_ids.shape[1], rows[0].shape[-1])
        for i, r in enumerate(rows):
            out[i, :len(r)] = r
        return out


@contextlib.contextmanager
def _layers_skipped(model, layers):
    """The given decoder layers of ``model`` pass their input through while the block runs (an instance attribute,
    removed after: the module tree and its parameters never change; their FLOPs are not counted)."""
    for layer in layers:
        layer.forward = _passthrough
    try:
        with costs.skipping_parameters(model, sum(p.numel() for layer in layers for p in layer.parameters())):
            yield
    finally:
        for layer in layers:
            del layer.forward


def _right_padded(batch, pad: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, batch))
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, seq in enumerate(batch):
        ids[row, :len(seq)] = torch.tensor(seq)
        mask[row, :len(seq)] = 1
    return ids.to(device), mask.to(device)


@contextlib.contextmanager
def serving_frozen_layers(states: FrozenStates, model=None):
    """While the block runs, the model reads the hidden state after its first ``states.k`` layers from ``states``
    (the embedding's output replaced by a forward hook; those layers pass it through). ``model``: another model
    whose embeddings and first ``k`` layers are the same weights as ``states.model``'s (a DPO checkpoint's base,
    its reference), served the same states; by default ``states.model``."""
    model = states.model if model is None else model
    embed = model.get_input_embeddings()
    handle = embed.register_forward_hook(
        lambda module, args, output: states.lookup(args[0]).to(device=output.device, dtype=output.dtype))
    try:
        with _layers_skipped(model, decoder_layers(model)[:states.k]):
            yield states
    finally:
        handle.remove()
