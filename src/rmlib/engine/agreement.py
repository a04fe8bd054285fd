"""Whether two scorings of the same candidates agree, in units that mean something: tolerances in standard
deviations of the scores, per dtype (:data:`TOLERANCE_SD`, with the measurements behind them), and a model's weights
in float32 for the duration of a check (:func:`in_float32`), the dtype in which a kernel error stands out of
rounding. Used by ``rmlib check`` (:mod:`rmlib.engine.preflight`) and ``benchmarks/gpu_check.py``.
"""
from __future__ import annotations

import contextlib

import torch

from rmlib.models import LoadedModel

__all__ = ["TOLERANCE_SD", "tolerance", "float32_room", "in_float32"]

#: The largest accepted max |difference| between two scorings of the same candidates, in units of the scores' standard
#: deviation over those candidates (what a reader of a sweep compares tokens by). Measured on CPU (2026-12-03, 64
#: candidates spread over the vocabulary, shared prefix vs full and batch 7 vs all): float32 differs by at most
#: 1.5e-5 sd (tiny Llama, Gemma-2 and Qwen2 RMs, SmolLM2 with a fresh head), float16 by 0.043 sd, bfloat16 by 0.50 sd
#: (tiny Qwen2; 0.23 tiny Llama, 0.14 SmolLM2, 0.12 tiny Gemma-2): bf16 keeps 8 significant bits, every layer rounds
#: the residual stream, and the two paths multiply matrices of other shapes. So float32 is the dtype that can test a
#: kernel: its bound, 1e-3 sd, lies 60x above its rounding and 100x below a 0.1 sd error. The bf16 and fp16 bounds
#: only keep rounding from failing a check (2x the largest measured); :func:`preflight` also compares in float32.
TOLERANCE_SD = {torch.float32: 1e-3, torch.float16: 0.1, torch.bfloat16: 1.0}


def tolerance(dtype: torch.dtype) -> float:
    """Largest accepted max |difference| between two scorings of one set of candidates, in standard deviations of
    the scores (:data:`TOLERANCE_SD`; dtypes not listed get float32's)."""
    return TOLERANCE_SD.get(dtype, TOLERANCE_SD[torch.float32])


def _free_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        return int(torch.cuda.mem_get_info(device)[0])
    try:
        with open("/proc/meminfo") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
    except (OSError, StopIteration):
        return 0


def float32_room(lm: LoadedModel) -> str | None:
    """Why the model cannot be turned to float32 where it is (each device's extra bytes against its free memory,
    with a quarter kept for activations), or None when it can."""
    extra: dict = {}
    for t in [*lm.model.parameters(), *lm.model.buffers()]:
        if t.is_floating_point() and t.element_size() < 4:
            extra[t.device] = extra.get(t.device, 0) + t.numel() * (4 - t.element_size())
    short = [f"{d}: {need / 2**30:.1f} GiB more, {free / 2**30:.1f} GiB free" for d, need in extra.items()
             if need > 0.75 * (free := _free_bytes(d))]
    return "; ".join(short) or None


@contextlib.contextmanager
def in_float32(lm: LoadedModel):
    """The same model with its weights in float32 for the duration (a bf16 or fp16 value is exact in float32, so
    turning it back restores every bit): the dtype in which a kernel error of 0.1 sd stands out of rounding."""
    import dataclasses

    if lm.dtype == torch.float32:
        yield lm
        return
    tensors = [t for t in [*lm.model.parameters(), *lm.model.buffers()] if t.is_floating_point()]
    kept = [t.dtype for t in tensors]
    for t in tensors:  # tensor by tensor, each on its own device: a model split by accelerate stays where it is
        t.data = t.data.to(torch.float32)
    try:
        yield dataclasses.replace(lm, dtype=torch.float32)
    finally:
        for t, dtype in zip(tensors, kept):
            t.data = t.data.to(dtype)
