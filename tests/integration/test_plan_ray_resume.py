"""Plans on Ray resume (#24): a run stopped part-way is finished by the next run from the cache, and a worker killed
in the middle of a job resumes that job from the shards it had written, not from scratch.

A local cluster of 2 CPUs of its own, started with RMLIB_SWEEP_CHUNK=20, so the workers' sweeps of the 320-token
tiny vocabulary write 16 shards each.
"""
from __future__ import annotations

import json
import os
import signal
import threading
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

from rmlib.engine import run_plan
from rmlib.storage import ShardStore
from tests.integration.ray_support import start_ray

ray = pytest.importorskip("ray")
# one local Ray cluster at a time: under `make test`'s two workers, both files run in the same one
pytestmark = pytest.mark.xdist_group("ray")

LOAD = {"head": "rm", "dtype": "float32", "allow_untrained_head": True}
F32_ROUNDING = 64 * float(np.finfo(np.float32).eps)  # Ray workers run torch on 1 thread: see test_plan_ray.py


class _Stop(Exception):
    pass


@pytest.fixture(scope="module")
def cluster():
    before = os.environ.get("RMLIB_SWEEP_CHUNK")
    os.environ["RMLIB_SWEEP_CHUNK"] = "20"  # the workers inherit it when the cluster starts
    start_ray(ray)
    try:
        yield
    finally:
        ray.shutdown()
        if before is None:
            os.environ.pop("RMLIB_SWEEP_CHUNK", None)
        else:
            os.environ["RMLIB_SWEEP_CHUNK"] = before


def _frames(report, root):
    return {r.key: ShardStore(root / r.key, {}).load() for r in report.results}


def _assert_same(a: dict, b: dict):
    assert a.keys() == b.keys() and a
    for key in a:
        x, y = a[key], b[key]
        assert x.token_id.is_unique and (x.token_id.to_numpy() == y.token_id.to_numpy()).all()
        atol = F32_ROUNDING * max(float(np.abs(y.score).max()), 1.0)
        np.testing.assert_allclose(x.score, y.score, atol=atol, rtol=0)


def test_a_stopped_ray_run_is_finished_from_the_cache_by_the_next(cluster, tmp_path, data_dir):
    plan = {"models": ["tiny-llama", "tiny-qwen2"], "prompts": ["greatest", "best"], "load": LOAD}
    seen = []

    def stop_after_first(res):
        seen.append(res)
        raise _Stop

    with pytest.raises(_Stop):
        run_plan(plan, ray="auto", workers=1, cache_root=tmp_path / "ray", progress=False, on_result=stop_after_first)
    assert len(seen) == 1 and seen[0].status == "done"
    again = run_plan(plan, ray="auto", workers=1, cache_root=tmp_path / "ray", progress=False)
    status = {r.job: r.status for r in again.results}
    assert status[seen[0].job] == "cached" and not again.failed and len(status) == 4
    serial = run_plan(plan, cache_root=tmp_path / "serial", progress=False)
    _assert_same(_frames(again, tmp_path / "ray"), _frames(serial, tmp_path / "serial"))


def _alive_worker_pids() -> set[int]:
    return {v["Pid"] for v in ray._private.state.actors().values()
            if v.get("State") == "ALIVE" and "ModelWorker" in str(v.get("ActorClassName"))}


def test_a_worker_killed_mid_job_resumes_that_job_from_its_shards(cluster, tmp_path, data_dir):
    plan = {"models": ["tiny-llama"], "prompts": ["greatest"], "load": LOAD, "batch_size": 1}  # ~0.2 s a shard
    root = tmp_path / "ray"
    killed = []

    def kill_after_four_shards():
        deadline = time.time() + 300
        while time.time() < deadline and not killed:
            shards = list(root.glob("*/shard-*.parquet"))
            pids = _alive_worker_pids()
            if len(shards) >= 4 and pids:
                os.kill(pids.pop(), signal.SIGKILL)
                killed.append(len(shards))
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_after_four_shards, daemon=True)
    watcher.start()
    report = run_plan(plan, ray="auto", workers=1, cache_root=root, progress=False)
    watcher.join(timeout=5)
    assert killed and not report.failed and report.results[0].status == "done"
    (result,) = [d for d in root.iterdir() if d.is_dir()]
    listed = json.loads((result / "COMPLETE").read_text())["shards"]
    writers = {json.loads(pq.read_schema(result / e["file"]).metadata[b"rmlib"])["started"] for e in listed}
    assert len(listed) == 16 and len(writers) == 2  # the first writer's shards were kept, the rest written after
    serial = run_plan(plan, cache_root=tmp_path / "serial", progress=False)
    _assert_same(_frames(report, root), _frames(serial, tmp_path / "serial"))
