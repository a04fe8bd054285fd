"""How fast this machine does the book's heavy work, against the machine that timed ``book/reference_times.yaml``.

A fresh clone's first ``make book`` can only estimate its chapters from another machine's timings (the machine of
the last quiet cold build, whose ``measured`` and ``calibration`` entries say when and how fast it was). A CPU
without bf16 units trains in float32 (``dtype="auto"``) and is several times slower than one with them, so the
reference minutes would mislead exactly the newcomer who most needs the estimate. So
the estimate is calibrated by a short measurement: about a second of matrix products in the dtype this machine
trains in (:func:`rmlib.train.training_dtype`), the operation that fine-tuning and scoring spend their time on,
against the same measurement recorded on the reference machine (``calibration`` in the YAML file). The factor
scales every reference timing; a chapter's own stamps, once it has run here, need no scaling. The analysis work
between the products (pandas, statsmodels) scales less than matrix products do, so on a machine far slower than the
reference the calibrated estimate leans high: it is said as an estimate.
"""
from __future__ import annotations

import time

from rmlib import models, train

__all__ = ["SHAPE", "matmul_gflops", "speed_factor", "calibration_text"]

SHAPE = (256, 2048, 2048)  # (rows, inner, columns): a batch of hidden states times a weight matrix of a small LM
MIN_FACTOR, MAX_FACTOR = 0.25, 50.0  # a factor outside these is a broken measurement, not a machine


def matmul_gflops(dtype: str | None = None, seconds: float = 1.0) -> dict:
    """GFLOP/s of repeated ``SHAPE`` products in ``dtype`` (None: what training picks here) over about ``seconds``,
    after one warm-up product, with torch's threads as the book runs them: {"dtype", "gflops"}."""
    import torch  # deferred: the runner loads without torch until it measures

    dtype = dtype or train.training_dtype()
    m, k, n = SHAPE
    a = torch.randn(m, k).to(models.DTYPE_BY_NAME[dtype])
    b = torch.randn(k, n).to(models.DTYPE_BY_NAME[dtype])
    a @ b  # warm-up: the first product sets up the kernels
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        a @ b
        count += 1
    elapsed = time.perf_counter() - start
    return {"dtype": dtype, "gflops": round(2 * m * k * n * count / elapsed / 1e9, 1)}


def speed_factor(reference: dict | None, here: dict | None) -> float | None:
    """How many times longer the book's work takes here than on the reference machine: the reference's GFLOP/s over
    this machine's (each in its own training dtype). None when either is missing or the ratio is implausible."""
    try:
        factor = float(reference["gflops"]) / float(here["gflops"])
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        return None
    return factor if MIN_FACTOR <= factor <= MAX_FACTOR else None


def calibration_text(reference: dict, here: dict, factor: float) -> str:
    """The calibration in words, for the log: what was measured here and on the reference machine."""
    return (f"calibrated by a 1-second {here['dtype']} matrix product: {here['gflops']:,.0f} GFLOP/s here against "
            f"{reference['gflops']:,.0f} ({reference['dtype']}) on the reference machine, so {factor:.1f}× its times")
