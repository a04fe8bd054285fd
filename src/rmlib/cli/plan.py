"""``rmlib plan PLAN`` (the jobs, each model's loading options, and which jobs are already in the cache), ``rmlib
plan PLAN --estimate`` (FLOPs, GPU-hours and wall time, estimated from the models' architectures) and ``rmlib run
PLAN`` (run them, serially or on Ray). The plan format is in :mod:`rmlib.engine.plan`; neither ``rmlib plan`` form
loads a model or needs the network."""
from __future__ import annotations

__all__ = ["add_subparser"]


def _cmd_plan(args) -> int:
    if args.estimate:
        from rmlib.engine.cost import estimate
        print(estimate(args.plan, gpu=args.gpu, mfu=args.mfu, workers=args.workers).report())
        return 0
    from rmlib.engine.plan import plan_status
    rows = plan_status(args.plan)
    loads = {}
    for job, _ in rows:
        loads.setdefault(job.model, (job.gpu_dtype, dict(job.load)))
    for model, (dtype, load) in loads.items():
        opts = "".join(f", {k}={v}" for k, v in load.items() if k != "dtype")
        print(f"load  {model}: {dtype or 'the default dtype'}{'' if 'dtype' in load else ' on GPU'}{opts}")
    for job, done in rows:
        print(f"{'done' if done else 'todo' if done is False else 'todo?':<5} {job.name}")
    n, unknown = sum(done is True for _, done in rows), sum(done is None for _, done in rows)
    print(f"{len(rows)} jobs: {n} complete in the cache, {len(rows) - n - unknown} to run"
          + (f", {unknown} not known without loading their models (todo?: tiny or unpinned models, answer jobs; "
             "`rmlib run` serves any that are cached)" if unknown else "")
          + " (by each job's request key; `rmlib run` checks every key and shard)")
    return 0


def _cmd_run(args) -> int:
    from rmlib.engine.plan_runner import run_plan
    report = run_plan(args.plan, ray=args.ray, workers=args.workers, gpus_per_worker=args.gpus_per_worker,
                      threads_per_worker=args.threads_per_worker)
    print(report.summary())
    return 1 if report.failed else 0


def add_subparser(sub) -> None:
    p = sub.add_parser("plan", help="expand a plan of (model x prompt) sweeps into jobs; show which are done, or "
                                    "estimate what they cost (--estimate)")
    p.add_argument("plan", help="plan YAML (models, prompts, optional tokens, kind, answers, load)")
    p.add_argument("--estimate", action="store_true",
                   help="print FLOPs, GPU-hours and wall time per job, per model and in total (an estimate from "
                        "the registry's architectures at an assumed MFU, not a measurement)")
    p.add_argument("--gpu", default=None, metavar="h100|h200", help="with --estimate: the GPU (default h100)")
    p.add_argument("--mfu", type=float, default=None,
                   help="with --estimate: the assumed fraction of the GPU's peak reached (default 0.5, "
                        "rmlib.engine.cost.DEFAULT_MFU)")
    p.add_argument("--workers", type=int, default=1, help="with --estimate: GPUs (one worker each; default 1)")
    p.set_defaults(func=_cmd_plan)
    p = sub.add_parser("run", help="run a plan's jobs: serially here (default) or on Ray (--ray)")
    p.add_argument("plan")
    p.add_argument("--ray", nargs="?", const="auto", default=None, metavar="auto|ADDRESS",
                   help="run on Ray: 'auto' (the cluster of `ray start`, else a local one) or a cluster address")
    p.add_argument("--workers", type=int, default=None,
                   help="at most N workers at once; a model's prompts may be split over several (default: what "
                        "Ray fits)")
    p.add_argument("--gpus-per-worker", type=float, default=None, help="GPUs per worker (Ray num_gpus; default 0)")
    p.add_argument("--threads-per-worker", type=int, default=None,
                   help="CPU threads per worker (Ray num_cpus; default 1)")
    p.set_defaults(func=_cmd_run)
