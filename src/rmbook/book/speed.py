"""How fast this machine does the book's heavy work, against the machine that timed ``book/reference_times.yaml``.

A fresh clone's first ``make book`` can only estimate its chapters from another machine's timings (the machine of
the last quiet cold build, whose ``measured`` and ``calibration`` entries say when and how fast it was). A CPU
without bf16 units trains in float32 (``dtype="auto"``) and is slower than one with them, so the reference minutes
would mislead exactly the newcomer who most needs the estimate. So the estimate is calibrated by a short
measurement: about a second of forward passes of a small LM with SmolLM2-135M's layer shapes (random weights, four
layers, a batch of 64 short sequences) in the dtype this machine trains in (:func:`rmlib.train.training_dtype`),
against the same measurement recorded on the reference machine (``calibration`` in the YAML file). The factor
scales every reference timing; a chapter's own stamps, once it has run here, need no scaling.

Why a small LM's forward and not a bare matrix product: the book's heavy chapters fine-tune and score SmolLM2-sized
models, where attention, norms, memory traffic and Python overhead take a large share of the time. A bare bf16
product ran 5.4 times faster on an AMX Xeon (2,102 GFLOP/s, ``benchmarks/README.md``) than on the 2-core EPYC of
the reference timings (390), but the real SmolLM2 sweep only 2.05 times faster (737 and 360 tokens/s, the
``cpu_dtype`` benchmark), and the cold builds' chapters 1.7 times (59 and 101 minutes; fine-tuning 1.9). On the
EPYC itself, float32 against bf16: the product 2.6 times slower, the SmolLM2 sweep 1.79, this measurement 1.9-2.0.
The estimate is still an estimate: the analysis between the forwards (pandas, statsmodels) scales less.
"""
from __future__ import annotations

import functools
import os
import re
import time
from pathlib import Path

from rmlib import models, train

__all__ = ["LM_SHAPE", "lm_tokens_per_s", "speed_factor", "calibration_text", "machine", "cpu_kind", "matmul_gflops"]

# SmolLM2-135M's layer shapes (hidden 576, MLP 1,536, 9 query and 3 key-value heads), four of its 30 layers, a small
# vocabulary, and a batch of 64 sequences of 24 tokens: the forward the sweeps and the training steps repeat.
LM_SHAPE = {"hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 4, "num_attention_heads": 9,
            "num_key_value_heads": 3, "vocab_size": 4096, "batch": 64, "tokens": 24}
ROUNDS = 3
MIN_FACTOR, MAX_FACTOR = 0.1, 50.0  # a factor outside these is a broken measurement, not a machine


def lm_tokens_per_s(dtype: str | None = None, seconds: float = 1.0) -> dict:
    """Tokens per second of repeated :data:`LM_SHAPE` forwards in ``dtype`` (None: what training picks here), the
    best of :data:`ROUNDS` rounds over about ``seconds`` in all (one 5.3k against three 9.0-9.6k tokens/s in four
    runs on one quiet machine), after one warm-up forward, with torch's threads as the book runs them: {"dtype",
    "tokens_per_s", "measure"}."""
    import torch  # deferred: the runner loads without torch until it measures
    import transformers

    dtype = dtype or train.training_dtype()
    shape = dict(LM_SHAPE)
    batch, tokens = shape.pop("batch"), shape.pop("tokens")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(**shape, max_position_embeddings=tokens)
    model = transformers.LlamaForCausalLM(config).to(models.DTYPE_BY_NAME[dtype]).eval()
    ids = torch.randint(0, shape["vocab_size"], (batch, tokens))
    best = 0.0
    with torch.inference_mode():
        model(ids)  # warm-up: the first forward sets up the kernels
        for _ in range(ROUNDS):  # the best round: a moment of contention slows one round, not the machine
            count, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds / ROUNDS:
                model(ids)
                count += 1
            best = max(best, batch * tokens * count / (time.perf_counter() - start))
    return {"dtype": dtype, "tokens_per_s": round(best, 1),
            "measure": f"forward of a SmolLM2-shaped LM (rmbook.book.speed.LM_SHAPE), best of {ROUNDS} rounds"}


def speed_factor(reference: dict | None, here: dict | None) -> float | None:
    """How many times longer the book's work takes here than on the reference machine: the reference's tokens/s
    over this machine's (each in its own training dtype). None when either is missing or the ratio is implausible."""
    try:
        factor = float(reference["tokens_per_s"]) / float(here["tokens_per_s"])
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        return None
    return factor if MIN_FACTOR <= factor <= MAX_FACTOR else None


def calibration_text(reference: dict, here: dict, factor: float) -> str:
    """The calibration in words, for the log: what was measured here and on the reference machine."""
    return (f"calibrated by 1 second of {here['dtype']} forwards of a small LM: {here['tokens_per_s']:,.0f} tokens/s "
            f"here against {reference['tokens_per_s']:,.0f} ({reference['dtype']}) on the reference machine, so "
            f"{factor:.1f}× its times")


def cpu_kind() -> str:
    """The CPU's matrix units as the README's table names them: ``amx`` (an AMX Xeon), ``avx512_bf16`` or
    ``avx2`` (no bf16 units: float32 is the fast path), from /proc/cpuinfo's flags (what ``lscpu`` shows)."""
    try:
        flags = set(re.findall(r"\b(amx_bf16|avx512_bf16|avx2)\b", Path("/proc/cpuinfo").read_text()))
    except OSError:
        return "unknown"
    for flag, kind in (("amx_bf16", "amx"), ("avx512_bf16", "avx512_bf16"), ("avx2", "avx2")):
        if flag in flags:
            return kind
    return "other"


def matmul_gflops(dtype: str, n: int = 1024, seconds: float = 0.5) -> float:
    """GFLOP/s of repeated n x n products in ``dtype``, the best of :data:`ROUNDS` rounds: the peak a phase's
    FLOP rate is set against (the ceiling, not what a model's mix of products, norms and attention reaches)."""
    import torch

    a = torch.randn(n, n, dtype=models.DTYPE_BY_NAME[dtype])
    b = torch.randn(n, n, dtype=models.DTYPE_BY_NAME[dtype])
    a @ b
    best = 0.0
    for _ in range(ROUNDS):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / ROUNDS:
            a @ b
            count += 1
        best = max(best, 2 * n ** 3 * count / (time.perf_counter() - start) / 1e9)
    return round(best, 1)


@functools.cache
def machine() -> dict:
    """What a build's stamps record of the machine, measured once per process (about a second): the kind of CPU,
    its cores, the dtype the book trains and scores in here, and the matmul peak in float32 and in that dtype."""
    dtype = train.training_dtype()
    peaks = {d: matmul_gflops(d) for d in sorted({"float32", dtype})}
    return {"cpu": cpu_kind(), "cores": os.cpu_count(), "dtype": dtype, "matmul_gflops": peaks}
