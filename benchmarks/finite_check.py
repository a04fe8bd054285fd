"""The check after every training step that a run has not diverged (#61): every trainable tensor's
``isfinite().all()`` (the baseline) beside one fused norm of them all (``rmlib.train.trainer._non_finite_weight``),
on each base's trainable part under the fine-tuning chapter's ``last_n`` with 4 layers, interleaved, best of
``--rounds``. The CPU's flags and the load average are printed beside the times.

    .venv/bin/python benchmarks/finite_check.py
"""
from __future__ import annotations

import argparse
import json
import os
import time

import torch

from rmbook.book.speed import cpu_kind
from rmlib.models import load_model
from rmlib.train.frozen import decoder_layers
from rmlib.train.trainer import _non_finite_weight


def per_tensor(model):
    """The check before #61: each trainable tensor's isfinite().all() in turn."""
    return next((n for n, p in model.named_parameters() if p.requires_grad and not torch.isfinite(p).all()), None)


def best_ms(f, model, reps: int, rounds: int) -> float:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(reps):
            f(model)
        out.append((time.perf_counter() - t) / reps * 1000)
    return min(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bases", nargs="+", default=["smollm2-135m-instruct", "gemma3-270m",
                                                   "qwen2.5-coder-0.5b-instruct"])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    out = {"cpu": cpu_kind(), "threads": torch.get_num_threads(), "load_avg_before": os.getloadavg(), "bases": []}
    for base in args.bases:
        model = load_model(base, head="rm", dtype="float32", allow_untrained_head=True).model
        model.requires_grad_(False)
        for layer in list(decoder_layers(model))[-4:]:
            layer.requires_grad_(True)
        model.score.requires_grad_(True)
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        with torch.no_grad():
            before = after = None
            for _ in range(2):  # interleaved
                b = best_ms(per_tensor, model, args.reps, args.rounds)
                a = best_ms(_non_finite_weight, model, args.reps, args.rounds)
                before, after = min(before or b, b), min(after or a, a)
        out["bases"].append({"base": base, "trainable": trainable, "per_tensor_ms": round(before, 2),
                             "fused_norm_ms": round(after, 2), "ratio": round(after / before, 3)})
    out["load_avg_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
