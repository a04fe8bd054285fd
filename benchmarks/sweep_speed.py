"""Sweep-engine speed and memory, reported as ratios measured in one process.

1. id-exact (shared prefix) vs paper-faithful mode on the same model and vocabulary slice: the speed-up ratio.
2. achieved FLOP/s of the id-exact sweep vs a bf16 matmul of the model's own MLP shape, measured in the same run.
3. (--full) full-vocabulary time and peak RSS per model, each in a fresh child process so RSS is the sweep's own.

The scalar head is untrained (these are speed numbers, not findings). Results go to benchmarks/out/sweep_speed.json.
Usage:  .venv/bin/python benchmarks/sweep_speed.py [--models smollm2-135m-instruct gemma3-270m] [--full]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parent / "out"
PROMPT = "What, in one word, is the greatest thing ever?"
LOAD_AT_START = os.getloadavg()


def non_embedding_params(model) -> int:
    emb = model.get_input_embeddings().weight.numel()
    return sum(p.numel() for p in model.parameters()) - emb - model.score.weight.numel()


def matmul_flops(m: int, k: int, n: int, dtype, seconds: float = 3.0) -> float:
    a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
    for _ in range(3):
        a @ b
    n_iter, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        a @ b
        n_iter += 1
    return 2 * m * k * n * n_iter / (time.perf_counter() - t0)


def ratio_run(model_id: str, n_exact: int, n_paper: int) -> dict:
    from rmlib.engine import sweep
    from rmlib.engine.checks import auto_batch_size
    from rmlib.models import answer_slot, load_model

    lm = load_model(model_id, head="rm", allow_untrained_head=True)
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    s_new = 1 + len(slot.suffix_ids)
    bs = auto_batch_size(lm, s_new)
    with tempfile.TemporaryDirectory() as tmp:
        lo = 1000
        sweep(lm, PROMPT, tokens=range(lo, lo + bs), cache_root=Path(tmp) / "warm", progress=False)
        t0 = time.perf_counter()
        sweep(lm, PROMPT, tokens=range(lo, lo + n_exact), cache_root=Path(tmp) / "exact", progress=False)
        t_exact = (time.perf_counter() - t0) / n_exact
        t0 = time.perf_counter()
        sweep(lm, PROMPT, tokens=range(lo, lo + n_paper), mode="paper", batch_size=32,
              cache_root=Path(tmp) / "paper", progress=False)
        t_paper = (time.perf_counter() - t0) / n_paper
    cfg = lm.model.config
    flop_per_tok = 2 * non_embedding_params(lm.model)
    achieved = flop_per_tok * s_new / t_exact
    peak = matmul_flops(bs * s_new, cfg.hidden_size, cfg.intermediate_size, lm.dtype)
    return {"model": model_id, "dtype": str(lm.dtype), "threads": torch.get_num_threads(),
            "prefix_len": len(slot.prefix_ids), "new_positions": s_new, "batch_size": bs,
            "id_exact_s_per_token": t_exact, "paper_s_per_token": t_paper, "speedup": t_paper / t_exact,
            "achieved_gflops": achieved / 1e9, "matmul_gflops": peak / 1e9, "share_of_matmul": achieved / peak,
            "n_exact": n_exact, "n_paper": n_paper}


def peak_rss_bytes() -> int:
    """VmHWM of this process. (ru_maxrss is not used: Linux carries it over from the forking parent.)"""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def full_child(model_id: str, compile: bool = False) -> None:
    """Runs in a child: full-vocabulary sweep, then prints JSON with time and peak RSS."""
    from rmlib.engine import sweep
    from rmlib.models import load_model

    lm = load_model(model_id, head="rm", allow_untrained_head=True)
    weights = sum(p.numel() * p.element_size() for p in lm.model.parameters())
    rss_loaded = peak_rss_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        res = sweep(lm, PROMPT, cache_root=Path(tmp), progress=True, compile=compile)
        elapsed = time.perf_counter() - t0
    print(json.dumps({"model": model_id, "n_tokens": len(res.frame), "seconds": elapsed,
                      "weights_bytes": weights, "peak_rss_bytes": peak_rss_bytes(),
                      "rss_after_load_bytes": rss_loaded, "dtype": str(lm.dtype), "compile": compile,
                      "load_avg_before": LOAD_AT_START, "load_avg_after": os.getloadavg()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["smollm2-135m-instruct", "gemma3-270m"])
    ap.add_argument("--n-exact", type=int, default=2048)
    ap.add_argument("--n-paper", type=int, default=128)
    ap.add_argument("--full", action="store_true", help="also time the full vocabulary (minutes)")
    ap.add_argument("--full-only", action="store_true", help="skip the ratio runs")
    ap.add_argument("--compile", action="store_true", help="full runs with sweep(compile=True) (compile time included)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        full_child(args.child, args.compile)
        return
    OUT.mkdir(exist_ok=True)
    report = {"ratios": [] if args.full_only else [ratio_run(m, args.n_exact, args.n_paper) for m in args.models],
              "full": []}
    for r in report["ratios"]:
        print(f"{r['model']}: id-exact {1 / r['id_exact_s_per_token']:.0f} tok/s, paper {1 / r['paper_s_per_token']:.1f} "
              f"tok/s, speed-up {r['speedup']:.1f}x; {r['achieved_gflops']:.0f} GFLOP/s = "
              f"{100 * r['share_of_matmul']:.0f}% of a same-shape matmul ({r['matmul_gflops']:.0f} GFLOP/s)")
    if args.full or args.full_only:
        for m in args.models:
            cmd = [sys.executable, __file__, "--child", m] + (["--compile"] if args.compile else [])
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            report["full"].append(row)
            print(f"{m}: full vocabulary ({row['n_tokens']} tokens) in {row['seconds']:.0f} s; peak RSS "
                  f"{row['peak_rss_bytes'] / 2**30:.2f} GiB vs weights {row['weights_bytes'] / 2**30:.2f} GiB; compile="
                  f"{row['compile']}; load avg {row['load_avg_before'][0]:.2f} -> {row['load_avg_after'][0]:.2f}")
    name = ("sweep_speed_full" + ("_compile" if args.compile else "") + ".json") if args.full_only else "sweep_speed.json"
    (OUT / name).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
