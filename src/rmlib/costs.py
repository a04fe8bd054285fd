"""Where a process's time goes, by phase, and how much it computed (#61: the book's cost table).

The cost table (``benchmarks/book_cost.py``) asks of every chapter how long it spent loading models, sweeping
vocabularies, scoring answers, training, computing frozen layers, evaluating checkpoints, reading models through
the reward lens (its forwards, patches and ablations: :func:`rmlib.lens.run_with`) and searching multi-token answers
(GCG: :func:`rmlib.engine.gcg.gcg`), and how many FLOPs each
of those ran, so that each phase's speed can be set against the machine's matmul peak. rmlib's entry points wrap
their work in :func:`phase`. Time is exclusive: a model loaded inside training counts as loading, and the training
phase resumes after it; whatever no phase holds is the chapter's own analysis and rendering.

FLOPs are counted where the work happens, as the field counts them: every forward pass through a model that rmlib
loaded adds 2 x (its parameters that ran, embeddings and skipped layers left out) x (tokens in the batch, padding
included) (:func:`count_forwards`); a forward that autograd records for a backward pass adds 4 x (its trainable
parameters) x tokens more. Attention's own products are left out (a few per cent at the book's 64-token sequences),
and so is an LM head's vocabulary projection (computed for a few positions only): the figures are a floor. A
forward that starts from embeddings rather than ids (GCG's gradient) passes no ids to the hook; its caller adds
:func:`forward_flops` itself, once for the forward and once for the backward pass to the inputs.
"""
from __future__ import annotations

import contextlib
import time

__all__ = ["PHASES", "phase", "totals", "reset", "add_flops", "count_forwards", "forward_flops", "skipping_parameters"]

PHASES = ("load", "sweep", "answers", "train", "frozen", "evaluate", "lens", "search")
_totals: dict[str, dict[str, float]] = {}
_stack: list[list] = []  # [phase, when its current stretch of exclusive time began]


def _row(name: str) -> dict[str, float]:
    return _totals.setdefault(name, {"seconds": 0.0, "flops": 0.0, "calls": 0})


@contextlib.contextmanager
def phase(name: str):
    """Count the block's time (less that of phases nested in it) and the FLOPs counted inside it as ``name``."""
    now = time.perf_counter()
    if _stack:
        _row(_stack[-1][0])["seconds"] += now - _stack[-1][1]
    _stack.append([name, now])
    try:
        yield
    finally:
        end = time.perf_counter()
        done, start = _stack.pop()
        row = _row(done)
        row["seconds"] += end - start
        row["calls"] += 1
        if _stack:
            _stack[-1][1] = end


def add_flops(flops: float) -> None:
    """Add ``flops`` to the phase now running ("other" outside any)."""
    _row(_stack[-1][0] if _stack else "other")["flops"] += float(flops)


def totals() -> dict[str, dict[str, float]]:
    """{phase: {seconds, flops, calls}} since the process started (or :func:`reset`)."""
    return {k: dict(v) for k, v in _totals.items()}


def reset() -> None:
    _totals.clear()


def count_forwards(model) -> None:
    """Count the FLOPs of every forward pass of ``model`` (a torch module with input embeddings), once per model."""
    if getattr(model, "_rmlib_counted", False):
        return
    import torch

    embed = model.get_input_embeddings()
    embedding = {id(p) for p in embed.parameters()}

    def hook(module, args, output):
        ids = args[0] if args else None
        if ids is None or not hasattr(ids, "numel"):
            return
        tokens = ids.numel()
        flops = forward_flops(model, tokens)
        if torch.is_grad_enabled() and model.training:
            flops += 4 * sum(p.numel() for p in model.parameters() if p.requires_grad) * tokens
        add_flops(flops)

    model._rmlib_parameters = sum(p.numel() for p in model.parameters() if id(p) not in embedding)
    model._rmlib_counted = True
    embed.register_forward_hook(hook)


def forward_flops(model, tokens: int) -> float:
    """2 x (``model``'s parameters that run) x ``tokens``: a forward the hook of :func:`count_forwards` does not see
    (one from embeddings), or the backward pass of one to its inputs (the same products, transposed); 0 for a model
    whose forwards are not counted."""
    ran = getattr(model, "_rmlib_parameters", 0) - getattr(model, "_rmlib_skipped", 0)
    return 2.0 * ran * tokens if getattr(model, "_rmlib_counted", False) else 0.0


@contextlib.contextmanager
def skipping_parameters(model, n: int):
    """While the block runs, ``n`` of ``model``'s parameters do not run in its forward passes (layers passed
    through): they are not counted."""
    model._rmlib_skipped = getattr(model, "_rmlib_skipped", 0) + n
    try:
        yield
    finally:
        model._rmlib_skipped -= n
