"""One base LM held while a chapter evaluates the ``last_n`` checkpoints trained from it (#61: loading was the book's
largest waste).

Why: a ``last_n`` checkpoint (:mod:`rmlib.train.export`) stores only its trained tensors, so loading it loaded its
base again in full (with the base's tokenizer, which the checkpoint does not use) and hashed the base's frozen
weights to compare them with the checkpoint's recorded fingerprint. The fine-tuning chapter evaluates 27 checkpoints
of three bases, so it read each base 6 to 15 times for this alone. ``benchmarks/finetuning_loads.py`` measured it on
a slice of the chapter (2 seeds, 4 checkpoints, side by side; the table is in ``benchmarks/README.md``): loading was
13% of the SmolLM2 slice and 36% of the Gemma-3 one, and holding the base cut the load phase to 0.69-0.70x (3 of
6 base reads left: one held, one per training run), with the same numbers. A training run's own load is left as
it was: its scalar head is drawn by ``from_pretrained`` under the run's seed, which a held copy cannot give without
that draw, and it is one load per run against the run's minutes of steps. What a checkpoint still pays is its own
tokenizer (Gemma-3's takes about 3 s) and its manifest check.

What is shared and what is fresh: inside :func:`sharing_bases` the base is loaded once per (id, head, dtype,
trust_remote_code, and the seed of a tiny base, whose every weight is drawn from it) and held unused. Each checkpoint
gets its own model: the module tree deep-copied, every tensor that the checkpoint overlays (its trained layers, norm
and head) a fresh copy, and every other parameter the held base's own tensor, which nothing writes: checkpoints are
only evaluated (``torch.inference_mode``). A tripwire checks before each copy that no held tensor was changed in place
(each tensor's version counter and storage); a changed base is dropped and loaded again. Only the CPU without a
change of dtype is shared (a ``.to()`` would convert the shared tensors themselves): the chapter's embedded bases
load in the dtype it evaluates in, whereas a tiny base, drawn in float32, evaluated in bfloat16 loads as before.

The check keeps its guarantee: the frozen weights' sha256 in the checkpoint's save dtype is computed once per held
base (and set of trained tensors), and every checkpoint's recorded fingerprint is still compared with it; what the
fingerprint protects, the base's weights, are the held tensors, read from files checked against their manifest when
they were loaded. The checkpoint's own files are still hashed against its manifest at every load (a file changed
since, even with its old mtime, has a new ctime and is hashed again and refused: :mod:`rmlib.storage.integrity`).

Memory: one base is held at a time (a request for another drops it first) and leaving the outermost block drops it,
so the chapter holds at most one base more than before; each checkpoint's model now adds only its trained tensors.
"""
from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Collection

import torch

from rmlib.registry import get_spec

__all__ = ["sharing_bases", "overlay_base", "held_bases"]

_depth = 0
_held: dict[tuple, "_Held"] = {}  # at most one entry


@contextlib.contextmanager
def sharing_bases():
    """While the block runs, ``last_n`` checkpoints of one base share that base's frozen tensors (see the module
    docstring); the held base is let go when the outermost block ends."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            _held.clear()


def held_bases() -> list:
    """The torch modules held now (for tests: at most one)."""
    return [h.model for h in _held.values()]


class _Held:
    """A base model loaded once and never run: copies of it share its frozen parameters."""

    def __init__(self, model):
        embed = model.get_input_embeddings()
        for key in list(embed._forward_hooks):  # the FLOP counter (rmlib.costs) of this, unused, model: each copy
            embed._forward_hooks.pop(key)      # gets its own when load_model counts it
            embed._forward_hooks_with_kwargs.pop(key, None)
            embed._forward_hooks_always_called.pop(key, None)
        model.__dict__.pop("_rmlib_counted", None)
        self.model, self.fingerprints = model, {}
        self.stamp = self._stamp()

    def _stamp(self) -> list[tuple]:
        return [(n, p._version, p.data_ptr(), p.dtype, tuple(p.shape)) for n, p in self.model.named_parameters()]

    def untouched(self) -> bool:
        return self._stamp() == self.stamp

    def copy(self, trained: Collection[str]):
        """A model of its own: module tree and the ``trained`` parameters copied, the others this base's tensors."""
        shared = {id(p): p for n, p in self.model.named_parameters() if n not in trained}
        return copy.deepcopy(self.model, memo=shared)

    def fingerprint(self, trained: Collection[str], dtype: torch.dtype, compute: Callable) -> str:
        key = (frozenset(trained), dtype)
        if key not in self.fingerprints:
            self.fingerprints[key] = compute(self.model, set(trained), dtype)
        return self.fingerprints[key]


def overlay_base(model_id: str, options: dict, trained: Collection[str], load_model: Callable,
                 fingerprint: Callable, shareable: bool):
    """(model, frozen_fingerprint(dtype)) of the base ``model_id`` loaded with ``options`` (keyword arguments of
    ``load_model``, on the CPU), for a checkpoint to lay its ``trained`` tensors over. Inside :func:`sharing_bases`
    and when ``shareable`` (no later conversion of the model), a copy of the held base, whose frozen fingerprint
    is computed once; otherwise a fresh load, as before. ``fingerprint(model, exclude, dtype)``: how the frozen
    weights are hashed (:func:`rmlib.models.local.frozen_weights_sha256`)."""
    if not (_depth and shareable):
        model = load_model(model_id, **options).model
        return model, lambda dtype: fingerprint(model, set(trained), dtype)
    key = (model_id, tuple(sorted(options.items())) if get_spec(model_id).source == "tiny"
           else tuple(sorted((k, v) for k, v in options.items() if k != "seed")))
    held = _held.get(key)
    if held is not None and not held.untouched():
        held = None  # a held tensor was written in place: never served, loaded again
    if held is None:
        _held.clear()  # one base at a time: the old one goes before the new one is read
        held = _held[key] = _Held(load_model(model_id, **options).model)
    return held.copy(trained), lambda dtype: held.fingerprint(trained, dtype, fingerprint)
