"""Serial vs Ray on this machine: the same plan run in one process, and on a local Ray cluster with 2 single-thread
workers; Ray's own overhead (cluster start, worker start + model load, per job). Not a test: prints one table.

    .venv/bin/python benchmarks/plan_scaleout.py [--models tiny-llama,tiny-gemma2] [--prompts greatest,best,worst]

Each run writes to its own fresh cache, so nothing is a cache hit. The load average is printed with the numbers.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="tiny-llama,tiny-gemma2")
    ap.add_argument("--prompts", default="greatest,best,worst")
    ap.add_argument("--batch-size", type=int, default=1, help="1 makes tiny-model jobs seconds long")
    args = ap.parse_args()
    os.environ.setdefault("TQDM_DISABLE", "1")
    import ray
    import torch

    from rmlib.engine import run_plan
    plan = {"models": args.models.split(","), "prompts": args.prompts.split(","), "batch_size": args.batch_size,
            "load": {"head": "rm", "dtype": "float32", "allow_untrained_head": True}}
    tmp = tempfile.mkdtemp(prefix="rmlib-bench-")
    print(f"load average before: {os.getloadavg()}")
    torch.set_num_threads(1)  # the serial run gets what one Ray worker gets: one thread
    t = time.perf_counter()
    serial = run_plan(plan, cache_root=f"{tmp}/serial", progress=False)
    t_serial = time.perf_counter() - t
    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    t_init = time.perf_counter() - t
    try:
        t = time.perf_counter()
        on_ray = run_plan(plan, ray="auto", workers=2, cache_root=f"{tmp}/ray", progress=False)
        t_ray = time.perf_counter() - t
    finally:
        ray.shutdown()
    compute_serial = sum(r.seconds for r in serial.results)
    compute_ray = sum(r.seconds for r in on_ray.results)
    n = len(serial.results)
    print(serial.summary())
    print(on_ray.summary())
    print(f"jobs {n}; serial (1 thread) {t_serial:.1f} s; ray: start {t_init:.1f} s + run {t_ray:.1f} s "
          f"= {t_init + t_ray:.1f} s; ratio serial/ray (run only) {t_serial / t_ray:.2f}, "
          f"(with start) {t_serial / (t_init + t_ray):.2f}")
    print(f"sum of job times: serial {compute_serial:.1f} s, ray {compute_ray:.1f} s; Ray's overhead beyond the "
          f"jobs (worker start, model load, scheduling), per job: {(2 * t_ray - compute_ray) / n:.2f} s "
          f"(2 workers' wall time minus their job time, over {n} jobs)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
