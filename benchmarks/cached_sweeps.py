"""What reading cached sweeps costs with and without the request index (rmlib.engine.sweep_index).

Each mode runs in a fresh process (models are cached per process), side by side in one run: ``load`` resolves the
model before looking its sweep up (the behaviour before the index), ``index`` serves the verified cached sweep
without loading. The sweeps must be cached already (the first pass fills the cache and the index). Prints the load
average with each timing.

    .venv/bin/python benchmarks/cached_sweeps.py [model ...]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

PROMPT = "What, in one word, is the greatest thing ever?"
MODELS = ["smollm2-135m-instruct", "gemma3-270m", "qwen2.5-coder-0.5b-instruct"]


def one_pass(mode: str, models: list[str]) -> dict:
    from rmlib.engine import rewards, sweep_index, token_rewards

    loads = []
    resolve = rewards.resolve_model
    rewards.resolve_model = lambda *a, **k: loads.append(a[0]) or resolve(*a, **k)
    if mode == "load":
        sweep_index.request_key = lambda *a, **k: None
    t0 = time.perf_counter()
    for m in models:
        token_rewards(m, PROMPT, progress=False)
    return {"mode": mode, "seconds": time.perf_counter() - t0, "models_loaded": len(loads),
            "load_average": os.getloadavg()[0]}


def main(models: list[str]) -> None:
    subprocess.run([sys.executable, __file__, "--pass", "index", *models], check=True, capture_output=True)  # fill
    out = {}
    for mode in ("load", "index"):
        r = subprocess.run([sys.executable, __file__, "--pass", mode, *models], check=True, capture_output=True,
                           text=True)
        out[mode] = json.loads(r.stdout.strip().splitlines()[-1])
        print(out[mode], flush=True)
    print(f"{len(models)} cached sweeps: {out['load']['seconds']:.1f} s loading the models, "
          f"{out['index']['seconds']:.2f} s from the index ({out['load']['seconds'] / out['index']['seconds']:.0f}x)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--pass"]:
        print(json.dumps(one_pass(sys.argv[2], sys.argv[3:] or MODELS)))
    else:
        main(sys.argv[1:] or MODELS)
