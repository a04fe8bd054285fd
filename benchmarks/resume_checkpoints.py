"""Resume checkpoints of the trained part only (#61): a ``last_n`` run whose resume checkpoints hold the whole model
(the baseline, as before ``rmlib.train.resume.TrainedPartCheckpoints``) beside the same run whose checkpoints hold
its trained tensors, in one process, interleaved, the states of the frozen layers already in the cache (so both
modes do the same work but for the saving).

For each round and mode: the whole ``train()`` call, the seconds inside the trainer's checkpoint saving (model,
optimizer and scheduler, and the manifest's hashing, from ``_save_checkpoint`` and the ``on_save`` callbacks) and
the bytes of the last resume checkpoint; and whether both modes exported bit-identical final weights. The CPU's
flags and the load average are printed beside the times.

    .venv/bin/python benchmarks/resume_checkpoints.py --base qwen2.5-coder-0.5b-instruct --steps 32 --save-every 16
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import torch
from transformers import TrainerCallback

import rmlib.train.trainer as trainer_module
from rmbook.book.speed import cpu_kind
from rmlib.trained import local_rm_dir
from rmlib.train import TrainConfig, train


class SaveTimer(TrainerCallback):
    """Seconds from the end of a saving step's optimizer step to the end of its ``on_save`` callbacks: the trainer's
    checkpoint and, after it, this run's exports and manifests (this callback is added last, so it runs last)."""

    def __init__(self):
        self.seconds, self.started = 0.0, None

    def on_step_end(self, args, state, control, **kw):
        self.started = time.perf_counter() if control.should_save else None

    def on_save(self, args, state, control, **kw):
        if self.started is not None:
            self.seconds += time.perf_counter() - self.started


def one(args, mode: str, cache: Path) -> dict:
    """One training run in ``mode`` ("whole": the baseline's whole-model checkpoints; "trained": the trained part)."""
    os.environ["RMLIB_CACHE_DIR"] = str(cache)
    shutil.rmtree(cache / "rms", ignore_errors=True)
    trainer_module.frozen_part_from_base = (lambda run: False) if mode == "whole" else baseline
    cfg = TrainConfig(name=f"bench-{mode}", base=args.base, sources=["hh_rlhf_harmless"], n_pairs=args.steps * 8,
                      n_test=16, steps=args.steps, save_every=args.save_every, batch_size=8, lr=1e-4, max_len=64,
                      tuning="last_n", n_layers=4, dtype=args.dtype, seed=0)
    timer = SaveTimer()
    t0 = time.perf_counter()
    train(cfg, progress=False, callbacks=[timer], keep_trainer_checkpoints=True)
    seconds = time.perf_counter() - t0
    last = max((local_rm_dir(cfg.name) / "trainer").glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    weights = (local_rm_dir(cfg.name) / "trained.safetensors").read_bytes()
    return {"mode": mode, "seconds": round(seconds, 2), "saving_s": round(timer.seconds, 2),
            "checkpoint_mb": round(sum(f.stat().st_size for f in last.rglob("*") if f.is_file()) / 2**20, 1),
            "weights_sha256": hashlib.sha256(weights).hexdigest()}


baseline = trainer_module.frozen_part_from_base


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="smollm2-135m-instruct")
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--save-every", type=int, default=16)
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--weights-cache", default=os.environ.get("RMLIB_CACHE_DIR", ""),
                    help="a cache whose dequantized/ and gguf/ folders are linked (built once)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    out = {"cpu": cpu_kind(), "load_avg_before": os.getloadavg(), **{k: getattr(args, k) for k in
                                                                     ("base", "steps", "save_every", "dtype")}}
    rows = []
    with tempfile.TemporaryDirectory(prefix="resume-ckpt-") as tmp:
        for folder in ("dequantized", "gguf"):
            if (Path(args.weights_cache) / folder).is_dir():
                (Path(tmp) / folder).symlink_to(Path(args.weights_cache).resolve() / folder)
        one(args, "trained", Path(tmp))  # a warm-up run: fills the frozen states, so both modes read them
        for r in range(args.rounds):
            for mode in ("whole", "trained"):
                rows.append({"round": r, **one(args, mode, Path(tmp))})
    out["load_avg_after"] = os.getloadavg()
    out["runs"] = rows
    whole = [x for x in rows if x["mode"] == "whole"]
    trained = [x for x in rows if x["mode"] == "trained"]
    out["same_weights"] = len({x.pop("weights_sha256") for x in rows}) == 1
    out["ratio"] = {"train_call": round(min(t["seconds"] / w["seconds"] for t, w in zip(trained, whole)), 3),
                    "saving": round(min(t["saving_s"] / w["saving_s"] for t, w in zip(trained, whole)), 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
