"""Frozen layers computed once (#61): a last_n training run with its frozen layers run in every step (the baseline)
beside the same run reading their states (``rmlib.train.frozen``), in one process, interleaved.

For each round and mode: the whole ``train()`` call (the states' one pass included, with an empty cache), the
median step, and the per-step losses' largest difference from the baseline. A third mode, ``cached``, trains again
with the states already in the cache (a run sharing the base and data: a nested subsample, another epoch). The
CPU's flags, the load average and a same-run float32 matmul peak are printed beside the times.

    .venv/bin/python benchmarks/frozen_layers.py --base smollm2-135m-instruct --steps 16 --dtype float32
    .venv/bin/python benchmarks/frozen_layers.py --objective dpo --dtype bfloat16   # an implicit RM (DPO)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from train_cost import timed_train  # this folder's training benchmark: a train() call timed step by step

from rmbook.book.speed import cpu_kind, matmul_gflops
from rmlib.train import TrainConfig


def one(args, mode: str, cache: Path) -> dict:
    os.environ["RMLIB_CACHE_DIR"] = str(cache)
    if mode != "cached":
        shutil.rmtree(cache / "frozen", ignore_errors=True)
    shutil.rmtree(cache / "rms", ignore_errors=True)
    cfg = TrainConfig(name=f"bench-{mode}", base=args.base, sources=[args.source], n_pairs=args.pairs, n_test=16,
                      steps=args.steps, save_every=args.steps, batch_size=8, lr=1e-4, max_len=64, tuning="last_n",
                      n_layers=4, dtype=args.dtype, seed=0, frozen_states=mode != "full",
                      objective=args.objective, **({"beta": 0.1} if args.objective == "dpo" else {}))
    return {"mode": mode, **timed_train(cfg)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", default="smollm2-135m-instruct")
    ap.add_argument("--source", default="hh_rlhf_harmless")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--pairs", type=int, default=128, help="training pairs (steps x 8 = one epoch)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--objective", default="bradley_terry", choices=["bradley_terry", "dpo"],
                    help="dpo: an implicit RM, whose LM head stays frozen (its reference pass is in train_call)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    peak = matmul_gflops("float32")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for mode in ("full", "frozen", "cached"):
                rows.append({"round": r, **one(args, mode, Path(tmp))})
    base = {r["round"]: r["losses"] for r in rows if r["mode"] == "full"}
    out = {"cpu": cpu_kind(), "load_avg": os.getloadavg(), "fp32_matmul_gflops": round(peak, 1),
           "base": args.base, "objective": args.objective, "dtype": args.dtype, "steps": args.steps,
           "pairs": args.pairs, "runs": []}
    for r in rows:
        out["runs"].append({"round": r["round"], "mode": r["mode"], "seconds": round(r["seconds"], 1),
                            "median_step_s": round(r["median_step"], 3),
                            "max_loss_diff": float(np.max(np.abs(r["losses"] - base[r["round"]])))})
    for mode in ("frozen", "cached"):
        ratio = [f["median_step"] / b["median_step"] for f, b in zip([r for r in rows if r["mode"] == mode],
                                                                      [r for r in rows if r["mode"] == "full"])]
        whole = [f["seconds"] / b["seconds"] for f, b in zip([r for r in rows if r["mode"] == mode],
                                                             [r for r in rows if r["mode"] == "full"])]
        out[f"{mode}_over_full"] = {"median_step": round(min(ratio), 3), "train_call": round(min(whole), 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
