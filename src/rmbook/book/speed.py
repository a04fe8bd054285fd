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

Why two factors: the chapters' time is not all forwards. Loading, pandas, statsmodels and rendering run one
Python thread and scale with the CPU's single-core speed, not its matrix units. Scaling whole chapters by the
forwards' ratio got the AMX Xeon's cold build (63.6 min) as 48 min from the EPYC's (101 min): 2 of 18 chapters
within ±25%, the published-mode chapters 2-3× off. So a stamp's compute phases (:mod:`rmlib.costs`: sweeps,
answers, training, frozen states, checkpoint evaluation, the reward lens's forwards) scale by the forwards' ratio and the rest by a second,
short measurement of Python and pandas work (:func:`python_ops_per_s`): the EPYC's chapters predicted from the AMX
build's phases that way came within ±25% for 13 of 18 chapters and 7% for the whole book (``benchmarks/README.md``).
Each measurement keeps the best of several short rounds, so a moment of contention slows one round, not the
machine; a machine busy with other work throughout is slower, and its estimate says so by being longer.
"""
from __future__ import annotations

import functools
import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rmlib import models, train

__all__ = ["LM_SHAPE", "COMPUTE_PHASES", "lm_tokens_per_s", "python_ops_per_s", "calibrate", "speed_factor",
           "rest_factor", "calibration_text", "busy_text", "machine", "cpu_kind", "matmul_gflops"]

# SmolLM2-135M's layer shapes (hidden 576, MLP 1,536, 9 query and 3 key-value heads), four of its 30 layers, a small
# vocabulary, and a batch of 64 sequences of 24 tokens: the forward the sweeps and the training steps repeat.
LM_SHAPE = {"hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 4, "num_attention_heads": 9,
            "num_key_value_heads": 3, "vocab_size": 4096, "batch": 64, "tokens": 24}
ROUNDS = 5
# the phases of a stamp's costs that run a model's forwards (rmlib.costs); the rest (loading, analysis, rendering) is
# scaled by the Python measurement
COMPUTE_PHASES = ("sweep", "answers", "train", "frozen", "evaluate", "lens", "search")
MIN_FACTOR, MAX_FACTOR = 0.1, 50.0  # a factor outside these is a broken measurement, not a machine


def lm_tokens_per_s(dtype: str | None = None, seconds: float = 2.0) -> dict:
    """Tokens per second of repeated :data:`LM_SHAPE` forwards in ``dtype`` (None: what training picks here), the
    best of :data:`ROUNDS` rounds over about ``seconds`` in all (with three rounds in one second, one 5.3k against
    three 9.0-9.6k tokens/s in four runs on one quiet machine, and 724 to 2,864 under a changing load on a busy
    one), after one warm-up forward, with torch's threads as the book runs them: {"dtype", "tokens_per_s",
    "measure"}."""
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


def _python_work() -> int:
    """One unit of the single-threaded work between the forwards: a pandas frame built, grouped, merged and sorted,
    and a loop of Python dictionaries and strings (what the analysis, the results' records and the pages do)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"word": rng.integers(0, 500, 4000).astype(str), "prompt": rng.integers(0, 8, 4000),
                          "reward": rng.normal(size=4000)})
    means = frame.groupby(["word", "prompt"], as_index=False)["reward"].mean()
    merged = frame.merge(means, on=["word", "prompt"], suffixes=("", "_mean")).sort_values("reward")
    records = {f"{w}-{p}": round(r, 4) for w, p, r in merged[["word", "prompt", "reward"]].itertuples(index=False)}
    return len(records) + sum(len(k) for k in records)


def python_ops_per_s(seconds: float = 1.0) -> dict:
    """Units of :func:`_python_work` per second, the best of :data:`ROUNDS` rounds over about ``seconds``: how fast
    this machine does the single-threaded part of a chapter (loading, analysis, rendering), which its matrix
    units do not speed up. {"python_per_s"}."""
    _python_work()  # warm-up: imports and the first allocations
    best = 0.0
    for _ in range(ROUNDS):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / ROUNDS:
            _python_work()
            count += 1
        best = max(best, count / (time.perf_counter() - start))
    return {"python_per_s": round(best, 2)}


def calibrate() -> dict:
    """Both measurements (about three seconds): {"dtype", "tokens_per_s", "python_per_s", "measure", "load",
    "cores"}, what ``tools/reference_times.py --calibrate`` records and what a first ``make book`` compares with it.
    ``load``: the 1-minute load average when it began, so the log can say when other work slowed it."""
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    got = {**lm_tokens_per_s(), **python_ops_per_s(), "load": round(load, 2), "cores": cores}
    got["measure"] += f"; Python and pandas work (rmbook.book.speed.python_ops_per_s), best of {ROUNDS} rounds"
    return got


def rest_factor(reference: dict | None, here: dict | None) -> float | None:
    """How many times longer the single-threaded part of a chapter takes here (the reference's ``python_per_s``
    over this machine's); None when either lacks it or the ratio is implausible."""
    try:
        factor = float(reference["python_per_s"]) / float(here["python_per_s"])
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        return None
    return factor if MIN_FACTOR <= factor <= MAX_FACTOR else None


def speed_factor(reference: dict | None, here: dict | None) -> float | None:
    """How many times longer the book's work takes here than on the reference machine: the reference's tokens/s
    over this machine's (each in its own training dtype). None when either is missing or the ratio is implausible."""
    try:
        factor = float(reference["tokens_per_s"]) / float(here["tokens_per_s"])
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        return None
    return factor if MIN_FACTOR <= factor <= MAX_FACTOR else None


def calibration_text(reference: dict, here: dict, factor: float, rest: float | None = None) -> str:
    """The calibration in words, for the log: what was measured here and on the reference machine, and what each
    factor scales (``rest`` None: the reference recorded no Python measurement, so whole chapters scale by one)."""
    forwards = (f"{here['dtype']} forwards of a small LM: {here['tokens_per_s']:,.0f} tokens/s here against "
                f"{reference['tokens_per_s']:,.0f} ({reference['dtype']}) on the reference machine, so {factor:.1f}×")
    if rest is None:
        text = f"calibrated by {forwards} its times"
    else:
        text = (f"calibrated by {forwards} its compute phases, and Python work: {here['python_per_s']:,.1f} units/s "
                f"here against {reference['python_per_s']:,.1f}, so {rest:.1f}× the rest (loading, analysis, rendering)")
    return text + busy_text(here)


def busy_text(here: dict) -> str:
    """A warning when other work was running while this machine was measured (a 1-minute load average above half its
    cores): the forwards' speed falls far more than the load suggests once two processes share two cores (3,097
    tokens/s against a quiet 24,000-28,000 on one AMX Xeon at load 2-3, 2026-12-07), so the estimate is then the
    busy machine's, not the machine's. Empty otherwise."""
    load, cores = here.get("load"), here.get("cores") or os.cpu_count() or 1
    if load is None or load <= cores / 2:
        return ""
    return (f"; measured while other work was running (load {load:.1f} on {cores} cores), so these are the busy "
            "machine's times: measure again when it is quiet (`rmlib book run --estimate`)")


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
