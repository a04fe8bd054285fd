"""Cost of RM training with the fine-tuning chapter's parameters: training pairs per second per base and objective.

Runs a few optimizer steps per base (the first one is warm-up and not counted) and reports the steady
throughput, so the chapter's full-run budget can be set from it: seconds ~ n_pairs / pairs_per_s. With
``--objectives bradley_terry dpo`` the explicit (scalar head) and implicit (DPO) RMs are measured side by side in one
run, interleaved ``--rounds`` times, and the DPO/BT ratio is printed with the load average (DPO's whole call also
holds its one reference pass over the distinct pairs).

    .venv/bin/python benchmarks/train_cost.py --steps 6 --threads 2
    .venv/bin/python benchmarks/train_cost.py --bases smollm2-135m-instruct --objectives bradley_terry dpo --rounds 2
"""
from __future__ import annotations

import argparse
import os
import shutil
import time

import torch
from transformers import TrainerCallback

from rmlib.trained import local_rm_dir
from rmlib.train import TrainConfig, train


class StepTimer(TrainerCallback):
    def __init__(self):
        self.times = []

    def on_step_begin(self, args, state, control, **kw):
        self.t0 = time.perf_counter()

    def on_step_end(self, args, state, control, **kw):
        self.times.append(time.perf_counter() - self.t0)


def timed_train(cfg: TrainConfig) -> dict:
    """One ``train()`` call timed: its seconds, its median step after the first (warm-up), its per-step losses."""
    import statistics

    timer = StepTimer()
    t0 = time.perf_counter()
    result = train(cfg, progress=False, callbacks=[timer])
    return {"seconds": time.perf_counter() - t0, "median_step": statistics.median(timer.times[1:]),
            "losses": result.log["loss"].to_numpy(dtype=float)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bases", nargs="+", default=["smollm2-135m-instruct", "gemma3-270m",
                                                    "qwen2.5-coder-0.5b-instruct"])
    ap.add_argument("--source", default="hh_rlhf_harmless")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--tuning", default="last_n", choices=["full", "last_n", "lora"])
    ap.add_argument("--n-layers", type=int, default=4)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--objectives", nargs="+", default=["bradley_terry"])
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(f"threads={a.threads} tuning={a.tuning} n_layers={a.n_layers} batch={a.batch_size} max_len={a.max_len} "
          f"dtype={a.dtype} source={a.source}")
    for base in a.bases:
        rates = {o: [] for o in a.objectives}
        for _ in range(a.rounds):
            for objective in a.objectives:
                rates[objective].append(_measure(a, base, objective))
        if len(a.objectives) > 1:
            ref = sum(rates[a.objectives[0]]) / a.rounds
            for o in a.objectives[1:]:
                print(f"{base}: {o}/{a.objectives[0]} pairs/s ratio {sum(rates[o]) / a.rounds / ref:.2f} "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)


def _measure(a, base: str, objective: str) -> float:
    name = f"bench-train-{base}-{objective}"
    shutil.rmtree(local_rm_dir(name), ignore_errors=True)
    cfg = TrainConfig(name=name, base=base, sources=[a.source], n_pairs=a.steps * a.batch_size, n_test=8,
                      steps=a.steps, batch_size=a.batch_size, max_len=a.max_len, tuning=a.tuning,
                      n_layers=a.n_layers, save_every=10 ** 6, dtype=a.dtype, objective=objective, beta=a.beta)
    timer = StepTimer()
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    train(cfg, progress=False, callbacks=[timer])
    total = time.perf_counter() - t0
    steady = timer.times[1:] or timer.times
    per_step = sum(steady) / len(steady)
    print(f"{base} [{objective}]: {a.batch_size / per_step:.2f} pairs/s ({per_step:.2f} s/step over {len(steady)} "
          f"steps; whole call incl. load+export {total:.0f} s; load {load0:.1f}->{os.getloadavg()[0]:.1f})",
          flush=True)
    shutil.rmtree(local_rm_dir(name), ignore_errors=True)
    return a.batch_size / per_step


if __name__ == "__main__":
    main()
