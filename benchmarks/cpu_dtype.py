"""bfloat16 vs float32 on this CPU: which precision should ``dtype="auto"`` pick for sweeps on a CPU?

``rmlib.models.devices.resolve_dtype`` picks bfloat16 on every CPU. That is fast where the CPU has bf16 units
(AVX512-BF16 or AMX), but a session on an AMD EPYC with neither measured a small bf16 forward about 5x *slower*
than float32. This measures both precisions side by side, in one process, on the same model, prompt and token
slice, alternating so that a change of load hits both alike:

1. a same-shape matmul (the model's MLP, one sweep batch) in each dtype: the machine's peak;
2. the id-exact sweep's seconds per token in each dtype (fresh caches, one warm-up batch each);

and reports float32 time / bfloat16 time (> 1: bfloat16 is faster here), each sweep's share of its own dtype's
matmul peak, the CPU's bf16 flags from ``lscpu`` and what torch says of its bf16 kernels
(``torch.backends.mkldnn``), with the load average before and after. Results: ``benchmarks/out/cpu_dtype.json``.

    .venv/bin/python benchmarks/cpu_dtype.py [--models smollm2-135m-instruct] [--n-tokens 1024] [--rounds 2]

Run it with nothing else running (a second process slows small forwards 5-10x).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import torch

from sweep_speed import matmul_flops  # the same peak measurement as the sweep benchmark (this folder)

OUT = Path(__file__).resolve().parent / "out"
PROMPT = "What, in one word, is the greatest thing ever?"


def cpu_bf16_flags() -> dict:
    """Which of the CPU's flags matter for bf16 (``lscpu``), and whether torch's oneDNN kernels take bf16."""
    try:
        flags = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        flags = ""
    model = next((line.split(":", 1)[1].strip() for line in flags.splitlines() if line.startswith("Model name")), "")
    mkldnn_bf16 = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    return {"cpu": model, **{f: f in flags.split() or f" {f} " in flags for f in
                              ("avx2", "avx512f", "avx512_bf16", "amx_bf16")},
            "torch_mkldnn_bf16": bool(mkldnn_bf16()) if mkldnn_bf16 else None}


def sweep_seconds_per_token(lm, n_tokens: int, batch_size: int) -> float:
    from rmlib.engine import sweep

    lo = 1000
    with tempfile.TemporaryDirectory() as tmp:
        sweep(lm, PROMPT, tokens=range(lo, lo + batch_size), batch_size=batch_size, cache_root=Path(tmp) / "warm",
              progress=False)
        t0 = time.perf_counter()
        sweep(lm, PROMPT, tokens=range(lo, lo + n_tokens), batch_size=batch_size, cache_root=Path(tmp) / "run",
              progress=False)
        return (time.perf_counter() - t0) / n_tokens


def compare(model_id: str, n_tokens: int, rounds: int, batch_size: int) -> dict:
    from rmlib.models import answer_slot, load_model

    lms = {d: load_model(model_id, head="rm", allow_untrained_head=True, dtype=d) for d in ("bfloat16", "float32")}
    slot = answer_slot(lms["float32"].tokenizer, PROMPT, lms["float32"].chat_template)
    s_new = 1 + len(slot.suffix_ids)
    cfg = lms["float32"].model.config
    times = {d: [] for d in lms}
    for _ in range(rounds):  # alternate, so that a change of load hits both
        for d, lm in lms.items():
            times[d].append(sweep_seconds_per_token(lm, n_tokens, batch_size))
    flop_per_tok = 2 * s_new * sum(p.numel() for n, p in lms["float32"].model.named_parameters()
                                   if "embed" not in n and "score" not in n)
    row = {"model": model_id, "n_tokens": n_tokens, "rounds": rounds, "batch_size": batch_size,
           "threads": torch.get_num_threads(), "new_positions": s_new}
    for d in lms:
        best = min(times[d])
        peak = matmul_flops(batch_size * s_new, cfg.hidden_size, cfg.intermediate_size, getattr(torch, d), seconds=2.0)
        row[d] = {"s_per_token": best, "all_s_per_token": times[d], "matmul_gflops": peak / 1e9,
                  "share_of_matmul": flop_per_tok / best / peak}
    row["fp32_over_bf16"] = row["float32"]["s_per_token"] / row["bfloat16"]["s_per_token"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["smollm2-135m-instruct"])
    ap.add_argument("--n-tokens", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args()
    load_before = os.getloadavg()
    report = {"machine": cpu_bf16_flags(), "load_avg_before": load_before,
              "rows": [compare(m, args.n_tokens, args.rounds, args.batch_size) for m in args.models]}
    report["load_avg_after"] = os.getloadavg()
    OUT.mkdir(exist_ok=True)
    (OUT / "cpu_dtype.json").write_text(json.dumps(report, indent=2))
    mach = report["machine"]
    print(f"{mach['cpu']}: avx512_bf16={mach['avx512_bf16']} amx_bf16={mach['amx_bf16']} "
          f"torch mkldnn bf16={mach['torch_mkldnn_bf16']}; load {load_before[0]:.2f} -> "
          f"{report['load_avg_after'][0]:.2f}")
    for r in report["rows"]:
        b, f = r["bfloat16"], r["float32"]
        print(f"{r['model']}: bf16 {1 / b['s_per_token']:.0f} tok/s ({100 * b['share_of_matmul']:.0f}% of a "
              f"{b['matmul_gflops']:.0f} GFLOP/s matmul), fp32 {1 / f['s_per_token']:.0f} tok/s "
              f"({100 * f['share_of_matmul']:.0f}% of {f['matmul_gflops']:.0f}); fp32 time / bf16 time = "
              f"{r['fp32_over_bf16']:.2f}")


if __name__ == "__main__":
    main()
