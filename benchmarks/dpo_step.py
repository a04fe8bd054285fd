"""A DPO run's steps on a CPU (#61), side by side in one process, interleaved:

* ``baseline``: TRL's fused LM head scoring every position of a batch (its CPU default), the frozen layers run in
  every step;
* ``compact``: the head scoring the completion's positions only (``rmlib.train.dpo.completion_positions_only``);
* ``compact+frozen``: and the frozen layers' states read from the cache (``rmlib.train.frozen``), as a run of the
  implicit_vs_explicit chapter reads those of the fine-tuning chapter's run on the same pairs.

For each: the whole ``train()`` call (its reference pass included), the median step, and the per-step losses' largest
difference from the baseline. The CPU's flags, the load and the same run's matmul peaks are printed beside them.

    .venv/bin/python benchmarks/dpo_step.py --steps 16 --pairs 128 --dtype bfloat16
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from train_cost import timed_train  # this folder's training benchmark: a train() call timed step by step

from rmbook.book.speed import cpu_kind, matmul_gflops
from rmlib.train import TrainConfig, dpo

MODES = ("baseline", "compact", "compact+frozen")


def one(args, mode: str, cache: Path) -> dict:
    os.environ["RMLIB_CACHE_DIR"] = str(cache)
    shutil.rmtree(cache / "rms", ignore_errors=True)
    cfg = TrainConfig(name=f"bench-dpo-{mode.replace('+', '-')}", base=args.base, sources=[args.source],
                      n_pairs=args.pairs, n_test=16, steps=args.steps, save_every=args.steps, batch_size=8, lr=1e-4,
                      max_len=64, tuning="last_n", n_layers=4, dtype=args.dtype, seed=0, objective="dpo", beta=0.1,
                      frozen_states=mode == "compact+frozen")
    real = dpo.completion_positions_only
    if mode == "baseline":
        dpo.completion_positions_only = contextlib.nullcontext  # TRL's own choice on a CPU: every position
    try:
        return {"mode": mode, **timed_train(cfg)}
    finally:
        dpo.completion_positions_only = real


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", default="smollm2-135m-instruct")
    ap.add_argument("--source", default="hh_rlhf_harmless")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--pairs", type=int, default=128)
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(2)
    peaks = {dt: round(matmul_gflops(dt), 1) for dt in ("float32", "bfloat16")}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RMLIB_CACHE_DIR"] = tmp
        from rmlib.models import load_model
        load_model(args.base, head="lm", dtype="float32")  # the GGUF's copy and tokenizer, before any timing
        for r in range(args.rounds):
            for mode in MODES:  # the frozen states enter the cache in the first round's last mode: read after
                rows.append({"round": r, **one(args, mode, Path(tmp))})
            if r == 0 and args.rounds == 1:  # the cached states, as the book reads them
                rows.append({"round": r, **one(args, "compact+frozen", Path(tmp))})
                rows[-1]["mode"] = "compact+frozen (cached)"
    base = {r["round"]: r["losses"] for r in rows if r["mode"] == "baseline"}
    out = {"cpu": cpu_kind(), "load_avg": [round(x, 2) for x in os.getloadavg()], "matmul_gflops": peaks,
           "base": args.base, "dtype": args.dtype, "steps": args.steps, "pairs": args.pairs, "runs": []}
    for r in rows:
        b = next(x for x in rows if x["round"] == r["round"] and x["mode"] == "baseline")
        out["runs"].append({"round": r["round"], "mode": r["mode"], "train_call_s": round(r["seconds"], 1),
                            "median_step_s": round(r["median_step"], 3),
                            "step_over_baseline": round(r["median_step"] / b["median_step"], 3),
                            "call_over_baseline": round(r["seconds"] / b["seconds"], 3),
                            "max_loss_diff": float(np.max(np.abs(r["losses"] - base[r["round"]])))})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
