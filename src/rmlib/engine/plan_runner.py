"""Run a plan's jobs: serially in this process (the default), or on Ray actors across cores, GPUs and nodes.

Both paths run the same :class:`ModelWorker`: it loads one model once and runs that model's jobs (or, on Ray with more
workers than models fill, one part of its prompts: :func:`rmlib.engine.cost.worker_groups`) through the ordinary
cached sweep (:func:`rmlib.engine.sweep`, :func:`rmlib.engine.score_answers`), so a job's result has the
same key, the same atomic shards, the same resume and the same verified cache hits whichever way it ran. A job that
fails for a reason of its own (a bad model id, NaN scores) comes back as a failed :class:`JobResult` and the other
jobs go on; it is never retried. A worker that *dies* (killed, out of memory) is restarted by Ray
(``max_restarts``) and its unfinished calls are resubmitted (``max_task_retries``); the job resumes from the
shards already written.

Multi-node: every node must see the same cache folder at the same path (NFS, a cluster filesystem); the driver
passes its absolute cache path to every worker.
"""
from __future__ import annotations

import math
import os
import socket
import time
from dataclasses import dataclass, field


from rmlib.config import progress_bar
from rmlib.engine import sweep_index
from rmlib.engine.answers import score_answers
from rmlib.engine.checks import SweepError
from rmlib.engine.cost import job_seconds, worker_groups
from rmlib.engine.plan import Job, expand, load_plan
from rmlib.engine.store import cache_parent
from rmlib.engine.token_sweep import sweep
from rmlib.engine.tokens import parse_tokens
from rmlib.errors import RmlibError
from rmlib.models import LoadOptions, cached_model

__all__ = ["ModelWorker", "JobResult", "PlanReport", "run_plan", "worker_options", "MAX_RESTARTS", "MAX_TASK_RETRIES"]

MAX_RESTARTS = 2      # a worker process that dies is restarted at most this often ...
MAX_TASK_RETRIES = 2  # ... and each of its unfinished jobs resubmitted at most this often


@dataclass
class JobResult:
    job: Job
    status: str            # 'done' (computed), 'cached' (a verified cache hit) or 'failed'
    seconds: float = 0.0
    tokens: int = 0        # rows scored (candidate tokens, or prompt x answer pairs)
    where: str = ""        # host:pid (device)
    key: str | None = None
    error: str | None = None

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 and self.status == "done" else float("nan")


@dataclass
class PlanReport:
    results: list[JobResult] = field(default_factory=list)
    seconds: float = 0.0
    backend: str = "serial"

    @property
    def failed(self) -> list[JobResult]:
        return [r for r in self.results if r.status == "failed"]

    def summary(self) -> str:
        """The per-job table and the failures with their errors, for the end of a run."""
        lines = [f"{'job':<48} {'status':<7} {'time s':>7} {'tokens':>8} {'tok/s':>8}  where"]
        for r in self.results:
            tps = f"{r.tokens_per_s:8.0f}" if r.tokens_per_s == r.tokens_per_s else f"{'-':>8}"
            lines.append(f"{r.job.name[:48]:<48} {r.status:<7} {r.seconds:7.1f} {r.tokens:8d} {tps}  {r.where}")
        n = {s: sum(r.status == s for r in self.results) for s in ("done", "cached", "failed")}
        lines.append(f"{len(self.results)} jobs in {self.seconds:.1f} s ({self.backend}): {n['done']} computed, "
                     f"{n['cached']} from the cache, {n['failed']} failed")
        for r in self.failed:
            lines.append(f"FAILED {r.job.name}: {r.error}")
        return "\n".join(lines)


class ModelWorker:
    """Loads one model (on first use, so a bad id fails its jobs, not the worker) and runs its jobs."""

    def __init__(self, model: str, load: tuple, cache_root: str | None, threads: int | None = None):
        if threads:
            import torch
            torch.set_num_threads(threads)
        self.model_id, self.load_items, self.cache_root = model, load, cache_root
        self._lm = None
        self._error: str | None = None

    def pid(self) -> int:
        return os.getpid()

    def _model(self):
        if self._lm is None and self._error is None:
            try:
                self._lm = cached_model(self.model_id, LoadOptions.of(**dict(self.load_items)))
            except Exception as exc:  # reported with the job; every job of this model fails the same way
                self._error = f"cannot load {self.model_id!r}: {type(exc).__name__}: {exc}"
        return self._lm

    def run(self, job: Job) -> JobResult:
        from pathlib import Path

        t0 = time.perf_counter()
        where = f"{socket.gethostname()}:{os.getpid()}"
        lm = self._model()
        if lm is None:
            return JobResult(job, "failed", time.perf_counter() - t0, 0, where, error=self._error)
        where += f" ({lm.device})"
        try:
            if job.kind == "answers":
                root = Path(self.cache_root).parent / "answers" if self.cache_root else None
                df = score_answers(lm, list(job.prompts), list(job.answers), batch_size=job.batch_size,
                                   progress=False, cache_root=root)
                key, cached = df.attrs.get("rmlib", {}).get("key"), False
                n = len(df)
            else:
                res = sweep(lm, job.prompt, tokens=parse_tokens(job.tokens), mode=job.mode,
                            batch_size=job.batch_size, progress=False, cache_root=self.cache_root)
                key, cached, n = res.meta.get("key"), res.cached, len(res.frame)
                _remember(job, res, lm.head, self.cache_root)
        except Exception as exc:  # the job's own failure (NaN scores, a prompt too long): reported, not retried
            return JobResult(job, "failed", time.perf_counter() - t0, 0, where, error=f"{type(exc).__name__}: {exc}")
        return JobResult(job, "cached" if cached else "done", time.perf_counter() - t0, n, where, key)


def _remember(job: Job, result, head: str, cache_root) -> None:
    """Record the job's request key -> the key of the sweep it produced (:mod:`rmlib.engine.sweep_index`), so that
    ``rmlib plan`` can tell it is done, and a chapter's own call is served, without loading the model. Only the
    shortcut is lost when the request has no key (no cheap fingerprint) or the entry cannot be written."""
    try:
        request = sweep_index.request_key(job.model, job.prompt, parse_tokens(job.tokens),
                                          LoadOptions.of(**dict(job.load)), mode=job.mode)
        if request is not None:
            sweep_index.record(request, result, head, cache_root)
    except Exception:  # noqa: BLE001 - the result is in the cache either way
        pass


def _bar(n_jobs: int, progress: bool, backend: str):
    return progress_bar(total=n_jobs, unit="job", desc=f"plan ({backend})", progress=progress,
                smoothing=0.0)


def _tick(bar, res: JobResult, tally: dict, t0: float) -> None:
    """One job finished: the bar counts jobs (its ETA is the jobs' rate) and shows tokens computed and failures."""
    tally["tokens"] += res.tokens if res.status == "done" else 0
    tally["failed"] += res.status == "failed"
    rate = tally["tokens"] / max(time.perf_counter() - t0, 1e-9)
    bar.set_postfix_str(f"{tally['tokens']:,} tok, {rate:,.0f} tok/s" +
                        (f", {tally['failed']} failed" if tally["failed"] else ""), refresh=False)
    bar.update(1)


def run_plan(plan, *, ray: str | None = None, workers: int | None = None, gpus_per_worker: float | None = None,
             threads_per_worker: int | None = None, cache_root=None, progress: bool = True,
             ray_init: dict | None = None, on_result=None) -> PlanReport:
    """Run every job of ``plan`` (a path, a dict or a :class:`rmlib.engine.plan.Plan`) and report each one.

    ``ray=None`` (the default): serially, in this process. ``ray='auto'``: on the Ray cluster this machine is part
    of (``ray start``), or on a local one started for this run; ``ray='ray://host:10001'`` or ``'host:6379'``: on
    that cluster. ``workers``: at most this many workers at once (default: as many as Ray's resources hold); a
    model's prompts are split over several workers when that ends the plan sooner (estimated from each model's
    architecture, :func:`rmlib.engine.cost.worker_groups`), and the costliest groups start first;
    ``gpus_per_worker``: GPUs asked of Ray per worker (``num_gpus``, default 0); ``threads_per_worker``: CPU threads
    per worker (``num_cpus`` and torch's thread count, default 1). These three shape Ray's workers, so a serial run
    refuses them rather than ignore them (:func:`worker_options`). ``ray_init``: extra ``ray.init`` arguments
    (tests: ``num_cpus``).
    ``on_result(JobResult)`` is called as each job finishes. Jobs that already have a result are cache hits.
    """
    gpus_per_worker, threads_per_worker = worker_options(ray, workers, gpus_per_worker, threads_per_worker)
    jobs = expand(load_plan(plan))
    root = str(cache_parent(cache_root, "sweeps").resolve())
    t0 = time.perf_counter()
    if ray is None:
        report = _run_serial(jobs, root, progress, on_result)
    else:
        report = _run_ray(jobs, root, ray, workers, gpus_per_worker, threads_per_worker, progress, ray_init or {},
                          on_result)
    report.seconds = time.perf_counter() - t0
    order = {j: i for i, j in enumerate(jobs)}
    report.results.sort(key=lambda r: order[r.job])
    return report


def worker_options(ray, workers, gpus, threads) -> tuple[float, int]:
    """(GPUs, threads) per Ray worker, after checking the three worker options: each in its range, and none given
    to a serial run (``ray=None``), which has one worker, this process, whatever they say."""
    given = [name for name, v in (("workers", workers), ("gpus_per_worker", gpus), ("threads_per_worker", threads))
             if v is not None]
    if ray is None and given:
        raise SweepError(f"{', '.join(given)} shape the workers of a Ray run (--ray); a serial run is this one "
                         "process, one model at a time on all its threads and on the device of each model's load "
                         "(the plan's load: {device: cuda}): drop them, or add --ray")
    for name, value in (("workers", workers), ("threads_per_worker", threads)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise SweepError(f"{name} must be a whole number >= 1, not {value!r}")
    if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, (int, float)) or not 0 <= gpus < math.inf):
        raise SweepError(f"gpus_per_worker must be a number >= 0 (a fraction shares a GPU), not {gpus!r}")
    return (gpus or 0), (threads or 1)


def _run_serial(jobs, root, progress, on_result) -> PlanReport:
    report, tokens, t0 = PlanReport(backend="serial"), {"tokens": 0, "failed": 0}, time.perf_counter()
    with _bar(len(jobs), progress, "serial") as bar:
        for group in worker_groups(jobs, 1):
            worker = ModelWorker(group.model, group.load, root)
            for job in group.jobs:
                res = worker.run(job)
                report.results.append(res)
                _tick(bar, res, tokens, t0)
                if on_result:
                    on_result(res)
    return report


def _run_ray(jobs, root, address, workers, gpus, threads, progress, ray_init, on_result) -> PlanReport:
    try:
        import ray as _ray  # the `ray` extra: only a plan run with --ray needs it
    except ImportError as exc:
        raise RmlibError("running a plan on Ray needs Ray: pip install -e '.[ray]' (make venv installs it)") from exc
    started_here = not _ray.is_initialized()
    if started_here:
        kwargs = {"include_dashboard": False, "log_to_driver": False, **ray_init}
        if address not in (None, "auto", "local"):
            kwargs["address"] = address
        elif address == "local":
            kwargs["address"] = "local"
        _ray.init(**kwargs)
    have = _ray.cluster_resources()
    if gpus and have.get("GPU", 0) < gpus or threads > have.get("CPU", 0):
        if started_here:
            _ray.shutdown()
        raise RuntimeError(f"a worker asks for {gpus} GPU and {threads} CPU but the Ray cluster has "
                           f"{have.get('GPU', 0):g} GPU and {have.get('CPU', 0):g} CPU in all: it would wait forever")
    remote = _ray.remote(ModelWorker).options(num_cpus=threads, num_gpus=gpus or 0, max_restarts=MAX_RESTARTS,
                                              max_task_retries=MAX_TASK_RETRIES)
    report, tokens, t0 = PlanReport(backend=f"ray ({address})"), {"tokens": 0, "failed": 0}, time.perf_counter()
    limit = workers or max(1, int(have.get("GPU", 0) // gpus if gpus else have.get("CPU", 0) // threads))
    pending_groups = sorted(worker_groups(jobs, limit, job_seconds), key=lambda g: -g.cost)  # longest first
    active: dict = {}   # ObjectRef -> (actor, job)
    live: dict = {}     # actor -> number of its jobs not yet finished
    try:
        with _bar(len(jobs), progress, "ray") as bar:
            while pending_groups or active:
                while pending_groups and len(live) < limit:
                    group = pending_groups.pop(0)
                    actor = remote.remote(group.model, group.load, root, threads)
                    live[actor] = len(group.jobs)
                    for job in group.jobs:
                        active[actor.run.remote(job)] = (actor, job)
                ready, _ = _ray.wait(list(active), num_returns=1)
                for ref in ready:
                    actor, job = active.pop(ref)
                    try:
                        res = _ray.get(ref)
                    except Exception as exc:  # the worker died more often than it may be restarted
                        res = JobResult(job, "failed", error=f"worker lost after {MAX_RESTARTS} restarts: "
                                                             f"{type(exc).__name__}: {str(exc)[:300]}")
                    report.results.append(res)
                    _tick(bar, res, tokens, t0)
                    if on_result:
                        on_result(res)
                    live[actor] -= 1
                    if live[actor] == 0:  # this group is finished: free its CPUs/GPUs for the next one
                        del live[actor]
                        _ray.kill(actor)
    finally:
        for actor in live:
            _ray.kill(actor)
        if started_here:
            _ray.shutdown()
    return report
