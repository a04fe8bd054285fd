"""Plans run serially (the default): a bad model id fails its jobs only, a killed driver's rerun serves finished jobs
from the cache and computes the rest, and the `rmlib plan`/`rmlib run` commands. The Ray runs are in
test_plan_ray.py."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import yaml

from rmlib.cli import main
from rmlib.engine import expand, run_plan
from rmlib.storage import ShardStore

LOAD = {"head": "rm", "dtype": "float32", "allow_untrained_head": True}
PLAN = {"models": ["tiny-llama", "tiny-gemma2", "tiny-qwen2"], "prompts": ["greatest", "best"], "load": LOAD}


def frames(report, root):
    """key -> the verified result of every job of a report (read back through the shard store)."""
    return {r.key: ShardStore(root / r.key, {}).load() for r in report.results}


def test_serial_plan_computes_then_serves_from_cache(tmp_path, data_dir):
    first = run_plan(PLAN, cache_root=tmp_path, progress=False)
    assert [r.status for r in first.results] == ["done"] * 6 and len({r.key for r in first.results}) == 6
    assert all(r.tokens == 320 and r.tokens_per_s > 0 and "cpu" in r.where for r in first.results)
    again = run_plan(PLAN, cache_root=tmp_path, progress=False)
    assert [r.status for r in again.results] == ["cached"] * 6
    assert [r.key for r in again.results] == [r.key for r in first.results]
    assert "6 jobs" in again.summary() and "6 from the cache" in again.summary()


def test_bad_model_fails_its_jobs_only_and_is_reported(tmp_path, data_dir):
    report = run_plan({**PLAN, "models": ["tiny-llama", "no-such/model-xyz"]}, cache_root=tmp_path, progress=False)
    status = {(r.job.model, r.job.prompt_key): r.status for r in report.results}
    assert status == {("tiny-llama", "greatest"): "done", ("tiny-llama", "best"): "done",
                      ("no-such/model-xyz", "greatest"): "failed", ("no-such/model-xyz", "best"): "failed"}
    assert all("no-such/model-xyz" in r.error for r in report.failed)
    assert report.summary().count("FAILED no-such/model-xyz") == 2


def test_nan_scores_fail_that_job_only(tmp_path, data_dir, monkeypatch):
    import rmlib.engine.token_sweep as ts
    real = ts._rm_chunk

    def nan_for_gemma(lm, *a, **k):
        cols = real(lm, *a, **k)
        if "gemma2" in lm.spec.id:
            cols["score"][3] = np.nan
        return cols
    monkeypatch.setattr(ts, "_rm_chunk", nan_for_gemma)
    report = run_plan({**PLAN, "models": ["tiny-gemma2", "tiny-llama"], "prompts": ["greatest"]},
                      cache_root=tmp_path, progress=False)
    assert [r.status for r in report.results] == ["failed", "done"]
    assert "finite" in report.failed[0].error.lower() or "nan" in report.failed[0].error.lower()


def test_killed_driver_rerun_serves_finished_jobs_and_runs_the_rest(tmp_path, data_dir):
    plan = tmp_path / "plan.yaml"
    plan.write_text(yaml.safe_dump({**PLAN, "models": PLAN["models"][:2], "tokens": "0:120", "batch_size": 1}))  # ~1 s a job
    cache = tmp_path / "cache"
    env = {**os.environ, "RMLIB_CACHE_DIR": str(cache), "RMLIB_DATA_DIR": str(data_dir), "TQDM_DISABLE": "1"}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from rmlib.cli import main; sys.exit(main())",
                             "run", str(plan)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sweeps = cache / "sweeps"
    deadline = time.time() + 120
    while time.time() < deadline and not list(sweeps.glob("*/COMPLETE")):
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {p.parent.name for p in sweeps.glob("*/COMPLETE")}
    assert 1 <= len(finished) < 4, "the driver was to be killed mid-plan"
    rerun = run_plan(plan, cache_root=sweeps, progress=False)
    assert not rerun.failed
    assert {r.key for r in rerun.results if r.status == "cached"} == finished
    assert sum(r.status == "done" for r in rerun.results) == 4 - len(finished)
    for df in frames(rerun, sweeps).values():  # every job whole: no lost or duplicated rows
        assert df.token_id.is_unique and len(df) == 120 and np.isfinite(df.score).all()


def test_cli_plan_and_run(tmp_path, data_dir, monkeypatch, capsys):
    from rmlib.engine import sweep_index
    from rmlib.models import clear
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    # `rmlib plan` says done by a job's request key, which needs a cheap weight fingerprint; tiny models have none
    # (their jobs list as "todo?"), so give tiny-llama one, as tests/integration/test_sweep_index.py does
    monkeypatch.setattr(sweep_index, "fingerprint", lambda spec, options: "weights-v1")
    clear()
    monkeypatch.setenv("TQDM_DISABLE", "1")
    plan = tmp_path / "plan.yaml"
    plan.write_text(yaml.safe_dump({**PLAN, "models": ["tiny-llama"]}))
    assert main(["plan", str(plan)]) == 0
    assert "todo  tiny-llama | greatest" in capsys.readouterr().out
    assert main(["run", str(plan)]) == 0
    assert "2 computed" in capsys.readouterr().out
    assert main(["plan", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "done  tiny-llama | best" in out and "2 complete in the cache" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**PLAN, "models": ["tiny-llama", "nope/nope"], "prompts": ["greatest"]}))
    assert main(["run", str(bad)]) == 1  # a failed job is a failed run, after the others finished
    assert "FAILED nope/nope | greatest" in capsys.readouterr().out
    assert len(expand(bad)) == 2


def test_chapters_read_a_plans_results_from_the_cache(tmp_path, data_dir, monkeypatch):
    """Run the plan first (on a cluster), build the book later: the chapters' own call is served by the cache."""
    import rmlib.engine.token_sweep as ts
    from rmlib.engine import token_reward_table
    from rmlib.models import LoadOptions
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    report = run_plan({**PLAN, "models": ["tiny-llama"], "prompts": ["greatest"]}, progress=False)
    assert [r.status for r in report.results] == ["done"]

    def no_compute(*a, **k):
        raise AssertionError("the chapter recomputed a sweep the plan had finished")
    monkeypatch.setattr(ts, "_sweep_into", no_compute)
    table = token_reward_table(["tiny-llama"], ["greatest"], load=LoadOptions(**LOAD))
    assert len(table) > 300 and table.reward.notna().all()


def test_answers_plan_scores_every_prompt_answer_pair(tmp_path, data_dir):
    plan = {**PLAN, "models": ["tiny-llama", "tiny-qwen2"], "kind": "answers", "answers": ["love", "war and peace"]}
    report = run_plan(plan, cache_root=tmp_path / "sweeps", progress=False)
    assert [r.status for r in report.results] == ["done", "done"]
    assert [r.tokens for r in report.results] == [4, 4]  # 2 prompts x 2 answers each
    assert (tmp_path / "answers").is_dir()               # beside the plan's sweeps, in the same cache


def test_a_models_own_load_options_reach_its_worker(tmp_path, data_dir):
    plan = {**PLAN, "models": ["tiny-llama", {"id": "tiny-qwen2", "load": {"dtype": "bfloat16"}}], "prompts": ["best"],
            "tokens": "0:40"}
    report = run_plan(plan, cache_root=tmp_path, progress=False)
    assert [r.status for r in report.results] == ["done", "done"]
    dtypes = {r.job.model: ShardStore(tmp_path / r.key, {}).load().attrs["rmlib"]["dtype"] for r in report.results}
    assert dtypes == {"tiny-llama": "float32", "tiny-qwen2": "bfloat16"}
