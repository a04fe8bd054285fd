"""What loading costs in the fine-tuning chapter (#61), and what holding a checkpoint's base once saves: a slice of the
chapter's work with each checkpoint loading its base afresh (the baseline, as before ``rmlib.models.sharing_bases``)
beside the same slice with the base held for all its checkpoints, interleaved, each in a process of its own (so
that each mode's peak RSS is its own and no process-wide memo carries over).

The slice: ``--seeds`` runs of ``--base`` (the chapter's settings: ``last_n`` with 4 layers, batch 8, 64 tokens,
``auto`` dtype) for ``--steps`` steps with a checkpoint every ``--save-every``, then every checkpoint evaluated as the
chapter does (``rmbook.chapters.finetuning.analysis.evaluate_runs``: held-out pairs and the value profile). Each
mode gets a fresh cache, with the de-quantised weights and tokenizer folders linked from ``--weights-cache`` (built
once, as a cold ``make book`` builds them once). Reported per mode: seconds per phase (``rmlib.costs``), the loads
(checkpoints, and bases read from their files), the whole slice, the peak RSS, and whether the evaluation's numbers
are the same as the baseline's; the ratio is the least over rounds. The CPU's kind and the load average are printed.

    .venv/bin/python benchmarks/finetuning_loads.py --weights-cache ~/.cache/rmlib --rounds 2
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import torch

import rmlib.models
from rmbook.book.speed import cpu_kind
from rmbook.chapters.finetuning import analysis as ft
from rmlib import costs
from rmlib.data import value_lexicon
from rmlib.models import loading
from rmlib.train import TrainConfig

MODES = ("fresh", "shared")


def child(args) -> dict:
    """One mode's slice in this process; prints its measurements as JSON."""
    torch.set_num_threads(args.threads)
    loads = {"checkpoints": 0, "bases": 0}
    for source, kind in (("local", "checkpoints"), ("embedded", "bases"), ("hub", "bases"), ("tiny", "bases")):
        def counted(*a, _load=loading.SOURCES[source].load, _kind=kind, **k):
            loads[_kind] += 1
            return _load(*a, **k)
        loading.SOURCES[source] = replace(loading.SOURCES[source], load=counted)
    if args.mode == "fresh":  # the baseline: the chapter's evaluation without the held base
        rmlib.models.sharing_bases = contextlib.nullcontext
    lexicon = value_lexicon("big2")
    configs = {(args.base, ("hh_rlhf_harmless",), s, args.pairs): TrainConfig(
        name=f"bench-s{s}", base=args.base, sources=["hh_rlhf_harmless"], seed=s, n_pairs=args.pairs, n_test=32,
        steps=args.steps, save_every=args.save_every, batch_size=8, lr=1e-4, max_len=64, tuning="last_n",
        n_layers=4, dtype="auto") for s in range(args.seeds)}
    start = time.perf_counter()
    runs = ft.train_runs(configs, progress=False)
    trained = time.perf_counter()
    metrics, profiles = ft.evaluate_runs(runs, lexicon, every_step=set(configs))
    end = time.perf_counter()
    return {"mode": args.mode, "slice_s": end - start, "train_s": trained - start, "evaluate_s": end - trained,
            "phases": {k: round(v["seconds"], 2) for k, v in costs.totals().items()},
            "load_calls": costs.totals().get("load", {}).get("calls", 0), **loads,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "evaluations": len(metrics), "numbers": _digest(metrics), "profiles": _digest(profiles)}


def _digest(df: pd.DataFrame) -> str:
    """sha256 of a table's values, bit for bit (floats hashed by their bits)."""
    return hashlib.sha256(pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes()).hexdigest()


def run_mode(args, mode: str) -> dict:
    """One mode's slice in a process of its own, with a fresh cache that links the built weights."""
    with tempfile.TemporaryDirectory(prefix="ft-loads-") as tmp:
        for folder in ("dequantized", "gguf"):
            if (Path(args.weights_cache) / folder).is_dir():
                (Path(tmp) / folder).symlink_to(Path(args.weights_cache).resolve() / folder)
        env = {**os.environ, "RMLIB_CACHE_DIR": tmp, "TQDM_DISABLE": "1"}
        cmd = [sys.executable, __file__, "--child", mode, *sys.argv[1:]]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="smollm2-135m-instruct")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--save-every", type=int, default=4)
    ap.add_argument("--pairs", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--weights-cache", default=os.environ.get("RMLIB_CACHE_DIR", ""),
                    help="a cache whose dequantized/ (weights and tokenizer folders) and gguf/ are linked")
    ap.add_argument("--child", dest="mode", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(child(args)))
        return
    out = {"cpu": cpu_kind(), "load_avg_before": os.getloadavg(), "base": args.base, "seeds": args.seeds,
           "steps": args.steps, "save_every": args.save_every, "runs": []}
    for r in range(args.rounds):
        for mode in MODES:
            out["runs"].append({"round": r, **run_mode(args, mode)})
    out["load_avg_after"] = os.getloadavg()
    fresh = [x for x in out["runs"] if x["mode"] == "fresh"]
    shared = [x for x in out["runs"] if x["mode"] == "shared"]
    out["same_numbers"] = all(s["numbers"] == f["numbers"] and s["profiles"] == f["profiles"]
                              for s, f in zip(shared, fresh))
    out["ratio"] = {"load": round(min(s["phases"]["load"] / f["phases"]["load"] for s, f in zip(shared, fresh)), 3),
                    "slice": round(min(s["slice_s"] / f["slice_s"] for s, f in zip(shared, fresh)), 3)}
    for x in out["runs"]:
        x.pop("numbers"), x.pop("profiles")
        for k in ("slice_s", "train_s", "evaluate_s", "peak_rss_mb"):
            x[k] = round(x[k], 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
