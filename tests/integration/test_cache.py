"""The result cache never serves a wrong number (issue #11): complete keys, verified shards, atomic replacement.

Each test names the defect it guards; each failed on the code before the fix (see tests/README.md).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rmlib.engine.token_sweep as sweep_mod
from rmlib.storage import shards
from rmlib.models import CacheWarning, load_model
from rmlib.storage import ShardError
from rmlib.engine import SweepError, score_answers, sweep

# `rmlib verify` checks the book's results folder too; these tests check the cache alone, whatever book is built here
NO_RESULTS = ["--results", tempfile.mkdtemp(prefix="rmlib-no-results-")]  # an empty folder (#62: a missing one is refused)


PROMPT = "What, in one word, is the greatest thing ever?"


WORST = "What, in one word, is the worst thing ever?"


def _bf16_rm(family="gemma3", seed=0):
    return load_model(f"tiny-{family}", head="rm", dtype="bfloat16", allow_untrained_head=True, seed=seed)


def _run_python(code: str, *args, env=None, wait=True):
    cmd = [sys.executable, "-c", textwrap.dedent(code), *map(str, args)]
    full_env = {**os.environ, **(env or {})}
    if not wait:
        return subprocess.Popen(cmd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=600)


# ---------------------------------------------------------------- 1. the key holds everything that changes a score

def test_method_is_in_the_key_and_each_method_gets_its_own_scores(tmp_path):
    """Defect 1: a method='full' request was served cached shared-prefix scores labelled 'full'."""
    lm = _bf16_rm()
    shared = sweep(lm, PROMPT, method="shared_prefix", cache_root=tmp_path, progress=False)
    full = sweep(lm, PROMPT, method="full", cache_root=tmp_path, progress=False)
    assert not full.cached and full.meta["method"] == "full" and shared.meta["method"] == "shared_prefix"
    reference = sweep(lm, PROMPT, method="full", cache_root=tmp_path / "alone", progress=False).frame
    pd.testing.assert_frame_equal(full.frame, reference)
    # in bf16 the two methods really differ (so serving one for the other is a wrong number)
    assert np.abs(full.frame.score - shared.frame.score).max() > 0.01


def test_every_setting_that_changes_a_score_changes_the_key(tmp_path):
    """Defect 1: method, the seed of a loaded model's random head and the attention kernel were missing."""
    lm = _bf16_rm("llama")
    base = dict(tokens=range(40), cache_root=tmp_path, progress=False)
    key = sweep(lm, PROMPT, **base).meta["key"]
    variants = {
        "method": lambda: sweep(lm, PROMPT, method="full", **base),
        "prompt": lambda: sweep(lm, WORST, **base),
        "mode": lambda: sweep(lm, PROMPT, mode="paper", **base),
        "candidates": lambda: sweep(lm, PROMPT, **{**base, "tokens": range(41)}),
        "dtype": lambda: sweep(load_model("tiny-llama", head="rm", dtype="float32", allow_untrained_head=True),
                               PROMPT, **base),
        "seed of the head": lambda: sweep(_bf16_rm("llama", seed=1), PROMPT, **base),
        "template": lambda: sweep(_with_template(lm), PROMPT, **base),
        "attention kernel": lambda: sweep(_with_eager_attention(), PROMPT, **base),
    }
    keys = {name: make().meta["key"] for name, make in variants.items()}
    assert key not in keys.values() and len(set(keys.values())) == len(keys), keys


def _with_eager_attention():
    lm = _bf16_rm("llama")
    lm.model.config._attn_implementation = "eager"
    return lm


def _with_template(lm):
    import dataclasses
    return dataclasses.replace(lm, chat_template=lm.chat_template.replace("<|start_header_id|>", "<|start_header_id|> "))


def test_tiny_lm_weights_from_another_seed_are_not_served_from_cache(tmp_path):
    """Defect 1: the seed was keyed only for untrained heads, and only when passed to sweep() itself."""
    a = load_model("tiny-qwen2", head="lm", dtype="float32", seed=0)
    b = load_model("tiny-qwen2", head="lm", dtype="float32", seed=1)
    ra = sweep(a, PROMPT, cache_root=tmp_path, progress=False)
    rb = sweep(b, PROMPT, cache_root=tmp_path, progress=False)
    assert not rb.cached and ra.meta["revision"] != rb.meta["revision"]
    assert not np.allclose(ra.frame.logprob, rb.frame.logprob)


def test_cached_metadata_describes_the_data_on_disk(tmp_path):
    """Defect 1: a cached load reported the caller's settings (here: batch size) instead of the data's."""
    lm = _bf16_rm("llama")
    first = sweep(lm, PROMPT, tokens=range(60), batch_size=7, cache_root=tmp_path, progress=False)
    again = sweep(lm, PROMPT, tokens=range(60), batch_size=64, cache_root=tmp_path, progress=False)
    assert again.cached and again.meta["batch_size"] == 7 and first.meta["batch_size"] == 7
    assert again.meta["method"] == "shared_prefix" and again.meta["key"] == first.meta["key"]
    words = score_answers(lm, [PROMPT], ["love", "peace"], batch_size=1, cache_root=tmp_path, progress=False)
    words2 = score_answers(lm, [PROMPT], ["love", "peace"], batch_size=2, cache_root=tmp_path, progress=False)
    assert words.attrs["rmlib"]["batch_size"] == words2.attrs["rmlib"]["batch_size"] == 1


def test_batch_size_is_not_in_the_key_because_it_changes_rounding_only(tmp_path):
    """The documented choice (sweep's docstring, README): batch size and device are recorded per shard, not keyed.

    A row's score does not depend on the other rows of its batch; in bf16 on CPU the scores are bit-identical
    across batch sizes here, while the two methods differ by up to ~0.3. Keying the batch size would make a GPU's
    memory-dependent automatic batch size miss the cache on every run.
    """
    lm = _bf16_rm()
    fresh = {bs: sweep(lm, PROMPT, batch_size=bs, cache_root=tmp_path / str(bs), progress=False).frame.score.to_numpy()
             for bs in (1, 7, 64, 320)}
    ulp = np.abs(fresh[1]) * 2.0 ** -7 + 1e-6  # one bf16 step
    for bs in (7, 64, 320):
        assert (np.abs(fresh[bs] - fresh[1]) <= ulp).all(), bs
    full = sweep(lm, PROMPT, method="full", batch_size=64, cache_root=tmp_path / "full", progress=False).frame.score
    assert (np.abs(full.to_numpy() - fresh[64]) > 2 * ulp).any()  # what the key does separate: several bf16 steps
    served = sweep(lm, PROMPT, batch_size=7, cache_root=tmp_path / "64", progress=False)
    assert served.cached and served.meta["batch_size"] == 64
    np.testing.assert_array_equal(served.frame.score.to_numpy(), fresh[64])


_METHOD_RUN = """
    import sys
    from pathlib import Path
    import rmlib.engine.token_sweep as S
    from rmlib.models import load_model
    S.CHUNK = 8  # 40 shards: the two runs interleave
    lm = load_model("tiny-gemma3", head="rm", dtype="bfloat16", allow_untrained_head=True)
    res = S.sweep(lm, "What, in one word, is the greatest thing ever?", method=sys.argv[1], cache_root=Path(sys.argv[2]),
                  progress=False, batch_size=8)
    out = res.frame[["token_id", "score"]].assign(method=res.meta["method"])
    out.to_parquet(sys.argv[3])
"""


def test_concurrent_sweeps_with_different_methods_each_get_their_own_scores(tmp_path):
    """Defect 1: runs started together with different methods mixed both kinds of shard in one result."""
    lm = _bf16_rm()
    refs = {m: sweep(lm, PROMPT, method=m, batch_size=8, cache_root=tmp_path / f"ref-{m}", progress=False).frame
            for m in ("shared_prefix", "full")}
    procs = {m: _run_python(_METHOD_RUN, m, tmp_path / "shared", tmp_path / f"{m}.parquet", wait=False)
             for m in ("shared_prefix", "full")}
    for m, p in procs.items():
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    for m in procs:
        got = pd.read_parquet(tmp_path / f"{m}.parquet")
        assert (got.method == m).all()
        np.testing.assert_array_equal(got.score.to_numpy(), refs[m].score.to_numpy())


_SAME_KEY_RUN = """
    import sys, time
    from pathlib import Path
    import rmlib.engine.token_sweep as S
    from rmlib.models import load_model
    S.CHUNK = 8  # 40 shards
    computed = []
    real = S._rm_chunk
    def slow_chunk(lm, slot, chunk_ids, *a, **k):
        computed.append(int(chunk_ids[0]))
        time.sleep(0.15)  # both runs are still going when the other starts
        return real(lm, slot, chunk_ids, *a, **k)
    S._rm_chunk = slow_chunk
    lm = load_model("tiny-gemma3", head="rm", dtype="bfloat16", allow_untrained_head=True)
    res = S.sweep(lm, "What, in one word, is the greatest thing ever?", cache_root=Path(sys.argv[1]), progress=False,
                  batch_size=8)
    res.frame[["token_id", "score"]].to_parquet(sys.argv[2])
    print(len(computed))
"""


def test_two_runs_of_one_key_share_the_shards_and_keep_one_file_each(tmp_path):
    """#24 item 13: two sweeps of the same key started together computed every shard twice and kept both files
    (the shard name hashes what each writer records); now each shard is claimed by one writer."""
    ref = sweep(_bf16_rm(), PROMPT, batch_size=8, cache_root=tmp_path / "ref", progress=False).frame
    procs = [_run_python(_SAME_KEY_RUN, tmp_path / "shared", tmp_path / f"{i}.parquet", wait=False) for i in range(2)]
    counts = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
        counts.append(int(out.split()[-1]))
    (folder,) = [d for d in (tmp_path / "shared").iterdir() if d.is_dir()]
    assert len(list(folder.glob("shard-*.parquet"))) == 40 and not list(folder.glob(".claim-*"))
    assert sum(counts) <= 42 and min(counts) > 0  # the work was split, not done twice
    for i in range(2):
        np.testing.assert_array_equal(pd.read_parquet(tmp_path / f"{i}.parquet").score.to_numpy(),
                                      ref.score.to_numpy())


def test_verify_removes_a_second_writers_unreferenced_shard_copy(tmp_path, monkeypatch):
    from rmlib.engine import verify_cache
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    res = sweep(_bf16_rm(), PROMPT, tokens=range(20), progress=False)
    folder = tmp_path / "sweeps" / res.meta["key"]
    (shard,) = folder.glob("shard-00000-*.parquet")
    copy = folder / "shard-00000-0123456789abcdef.parquet"  # what a concurrent writer used to leave beside it
    shutil.copy(shard, copy)
    findings = [f for f in verify_cache() if f.path == folder]
    assert findings and "unreferenced" in findings[0].detail and not copy.exists() and shard.exists()


def test_a_claim_left_by_a_killed_writer_is_taken_over(tmp_path):
    lm = _bf16_rm()
    first = sweep(lm, PROMPT, tokens=range(20), cache_root=tmp_path / "a", progress=False)
    folder = tmp_path / "b" / first.meta["key"]
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    import socket
    (folder / ".claim-00000").write_text(f"{socket.gethostname()} {int(dead.stdout)}")
    again = sweep(lm, PROMPT, tokens=range(20), cache_root=tmp_path / "b", progress=False)
    pd.testing.assert_frame_equal(again.frame[["token_id", "score"]], first.frame[["token_id", "score"]])
    assert not list(folder.glob(".claim-*"))


# ---------------------------------------------------------------- 2. cache=False recomputes, replaces atomically

def _tamper_scores(folder, delta=100.0):
    """Rewrite every shard with valid Parquet holding shifted scores (what a stale or foreign result looks like)."""
    for shard in sorted(folder.glob("shard-*.parquet")):
        table = pq.read_table(shard)
        df = table.to_pandas()
        df["score"] = df["score"] + delta
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(table.schema.metadata),
                       shard)


def test_no_cache_recomputes_every_shard(tmp_path):
    """Defect 2: cache=False reused the shards on disk, so overwritten shards came back with cached=False."""
    lm = _bf16_rm("llama")
    ref = sweep(lm, PROMPT, tokens=range(100), cache_root=tmp_path, progress=False)
    _tamper_scores(tmp_path / ref.meta["key"])
    fresh = sweep(lm, PROMPT, tokens=range(100), cache_root=tmp_path, progress=False, cache=False)
    assert not fresh.cached
    pd.testing.assert_frame_equal(fresh.frame, ref.frame)
    again = sweep(lm, PROMPT, tokens=range(100), cache_root=tmp_path, progress=False)
    assert again.cached
    pd.testing.assert_frame_equal(again.frame, ref.frame)
    assert sorted(p.name for p in tmp_path.iterdir()) == [ref.meta["key"]]  # no staging folder left behind


def test_a_killed_no_cache_run_leaves_the_old_result_untouched(tmp_path, monkeypatch):
    """Defect 2: the old result must stay whole and served until the fresh one replaces it."""
    lm = _bf16_rm("llama")
    monkeypatch.setattr(sweep_mod, "CHUNK", 20)
    ref = sweep(lm, PROMPT, tokens=range(100), cache_root=tmp_path, progress=False)
    folder = tmp_path / ref.meta["key"]
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    real_write, calls = shards.ShardStore.write_shard, {"n": 0}

    def dying_write(self, index, df):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt("killed")
        return real_write(self, index, df)

    monkeypatch.setattr(shards.ShardStore, "write_shard", dying_write)
    with pytest.raises(KeyboardInterrupt):
        sweep(lm, PROMPT, tokens=range(100), cache_root=tmp_path, progress=False, cache=False, batch_size=5)
    monkeypatch.setattr(shards.ShardStore, "write_shard", real_write)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    again = sweep(lm, PROMPT, tokens=range(100), cache_root=tmp_path, progress=False)
    assert again.cached
    pd.testing.assert_frame_equal(again.frame, ref.frame)


# ---------------------------------------------------------------- 3. shards are verified before they are served

def test_twenty_random_byte_flips_never_serve_a_changed_score(tiny_rms, tmp_path):
    """Defect 3 (the issue's corruption test): one byte flipped at a random offset of a shard, 20 seeded times.
    Every time the load detects it and recomputes (or refuses); it never serves a changed score."""
    lm = tiny_rms["llama"]
    ref = sweep(lm, PROMPT, tokens=range(200), cache_root=tmp_path / "ref", progress=False).frame
    rng = np.random.default_rng(20240611)
    outcomes = []
    for trial in range(20):
        root = tmp_path / f"trial{trial}"
        shutil.copytree(tmp_path / "ref", root)
        shard = sorted(root.rglob("shard-*.parquet"))[0]
        data = bytearray(shard.read_bytes())
        offset = int(rng.integers(len(data)))
        data[offset] ^= int(rng.integers(1, 256))
        shard.write_bytes(bytes(data))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res = sweep(lm, PROMPT, tokens=range(200), cache_root=root, progress=False)
            except (ShardError, SweepError):
                outcomes.append("refused")
                continue
        pd.testing.assert_frame_equal(res.frame, ref, obj=f"trial {trial} (byte {offset})")
        assert not res.cached, f"trial {trial}: a shard with byte {offset} flipped was served from the cache"
        assert any(shard.name in str(w.message) for w in caught), f"trial {trial}: no warning named the shard"
        outcomes.append("recomputed")
    assert len(outcomes) == 20


@pytest.mark.parametrize("target", ["meta.json", "COMPLETE"])
def test_a_damaged_label_or_marker_is_detected_and_rebuilt(target, tiny_rms, tmp_path):
    """Defect 3: meta.json and COMPLETE are hashed too; damage to them never serves a wrong label."""
    lm = tiny_rms["llama"]
    ref = sweep(lm, PROMPT, tokens=range(50), cache_root=tmp_path, progress=False)
    path = tmp_path / ref.meta["key"] / target
    text = path.read_text()
    if target == "meta.json":
        damaged = text.replace('"shared_prefix"', '"full"', 1)
    else:  # change one character, whatever it was (writing a fixed "9" was a no-op when the hash had a 9 there)
        damaged = text[:-5] + ("8" if text[-5] == "9" else "9") + text[-4:]
    assert damaged != text
    path.write_text(damaged)
    with pytest.warns(CacheWarning, match=target):
        again = sweep(lm, PROMPT, tokens=range(50), cache_root=tmp_path, progress=False)
    assert again.meta["method"] == "shared_prefix"
    pd.testing.assert_frame_equal(again.frame, ref.frame)


def test_answer_sets_are_verified_too(tiny_lms, tmp_path):
    """Defect 3: score_answers' shards carry hashes as well."""
    lm = tiny_lms["qwen2"]
    ref = score_answers(lm, [PROMPT, WORST], ["love", "peace and joy"], cache_root=tmp_path, progress=False)
    shard = sorted(tmp_path.rglob("shard-00001-*.parquet"))[0]
    data = bytearray(shard.read_bytes())
    data[len(data) // 3] ^= 0x10
    shard.write_bytes(bytes(data))
    with pytest.warns(CacheWarning, match=shard.name):
        again = score_answers(lm, [PROMPT, WORST], ["love", "peace and joy"], cache_root=tmp_path, progress=False)
    pd.testing.assert_frame_equal(again, ref)


# ---------------------------------------------------------------- 10. files, orphans

_KILLED_RUN = """
    import os, signal, sys
    from pathlib import Path
    import rmlib.engine.token_sweep as S
    from rmlib.models import load_model
    S.CHUNK = 10
    calls = {"n": 0}
    real_fsync = os.fsync
    def dying_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 4:  # meta.json, shard 0, shard 1, then killed while writing shard 2
            os.kill(os.getpid(), signal.SIGKILL)
        real_fsync(fd)
    os.fsync = dying_fsync
    lm = load_model("tiny-llama", head="rm", dtype="float32", allow_untrained_head=True)
    S.sweep(lm, "What, in one word, is the greatest thing ever?", tokens=range(50), cache_root=Path(sys.argv[1]),
            progress=False)
"""


def test_temporary_files_of_a_killed_run_are_removed_on_the_next_run(tmp_path, tiny_rms):
    """Defect 10: orphan .shard-*.tmp files stayed behind after kills."""
    proc = _run_python(_KILLED_RUN, tmp_path)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    leftovers = list(tmp_path.rglob(".shard-*tmp"))
    assert leftovers, "the kill left no temporary file (the test did not reproduce the defect)"
    sweep(tiny_rms["llama"], PROMPT, tokens=range(50), cache_root=tmp_path, progress=False)
    assert not [p for p in tmp_path.rglob(".*") if p.is_file() and p.name.endswith("tmp")]


def test_cache_files_get_the_umask_permissions(tmp_path, tiny_rms):
    """Defect 10: shard and data files were created 0600 (mkstemp), unreadable to others sharing a cache."""
    import hashlib
    import types
    from rmlib.data.fetch import _write_verified
    old = os.umask(0o022)
    try:
        res = sweep(tiny_rms["llama"], PROMPT, tokens=range(20), cache_root=tmp_path, progress=False)
        data_file = tmp_path / "data" / "file.txt"
        _write_verified(types.SimpleNamespace(sha256=hashlib.sha256(b"x").hexdigest(), path="file.txt"),
                        data_file, lambda tmp: tmp.write_bytes(b"x"))
    finally:
        os.umask(old)
    folder = tmp_path / res.meta["key"]
    for p in [*folder.iterdir(), data_file]:
        assert p.stat().st_mode & 0o777 == 0o644, (p.name, oct(p.stat().st_mode))
    assert folder.stat().st_mode & 0o777 == 0o755


def test_string_cache_root(tiny_rms, tmp_path):
    """Defect 10: a str cache_root raised TypeError."""
    res = sweep(tiny_rms["llama"], PROMPT, tokens=range(10), cache_root=str(tmp_path), progress=False)
    words = score_answers(tiny_rms["llama"], [PROMPT], ["love"], cache_root=str(tmp_path), progress=False)
    assert (tmp_path / res.meta["key"] / "COMPLETE").exists() and len(words) == 1


# ---------------------------------------------------------------- rmlib verify

def test_verify_reports_intact_corrupt_and_repaired(tmp_path, monkeypatch, tiny_rms, tiny_lms, capsys):
    from rmlib.cli import main
    from rmlib.engine import verify_cache
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    a = sweep(tiny_rms["llama"], PROMPT, tokens=range(30), progress=False)
    b = sweep(tiny_rms["qwen2"], PROMPT, tokens=range(30), progress=False)
    score_answers(tiny_lms["qwen2"], [PROMPT], ["love", "peace"], progress=False)
    orphan = tmp_path / "sweeps" / a.meta["key"] / ".shard-00001-0123456789abcdef.parquet.999999999.0badf00d.tmp"
    orphan.write_bytes(b"partial")
    assert main(["verify", *NO_RESULTS]) == 0
    out = capsys.readouterr().out
    assert out.count("intact") >= 3 and "cleaned" in out and not orphan.exists()
    shard = next((tmp_path / "sweeps" / b.meta["key"]).glob("shard-*.parquet"))
    data = bytearray(shard.read_bytes())
    data[200] ^= 1
    shard.write_bytes(bytes(data))
    assert main(["verify", "--dry-run", *NO_RESULTS]) == 1 and shard.exists()  # reports, moves nothing
    assert main(["verify", "--full", *NO_RESULTS]) == 1
    out = capsys.readouterr().out
    assert "corrupt" in out and shard.name in out and not shard.exists()
    again = sweep(tiny_rms["qwen2"], PROMPT, tokens=range(30), progress=False)
    assert not again.cached
    pd.testing.assert_frame_equal(again.frame, b.frame)
    statuses = {f.status for f in verify_cache(full=True)}
    assert statuses == {"intact"}


def test_verify_removes_damaged_dequantized_copies_that_older_versions_kept(tmp_path):
    """Older rmlib moved a damaged de-quantised copy aside as <name>.corrupt-* and kept it (12 GB seen); they are
    never read again, so a repair deletes them and a dry run only reports them."""
    from rmlib.engine import verify_cache
    old = tmp_path / "dequantized" / "smollm2-135m-instruct-b179c9523d0e.corrupt-20261130-154203-f6e4"
    old.mkdir(parents=True)
    (old / "model.safetensors").write_bytes(b"x" * 100)
    dry = [f for f in verify_cache(tmp_path, repair=False) if f.path == old]
    assert [f.status for f in dry] == ["corrupt"] and old.exists()
    done = [f for f in verify_cache(tmp_path, repair=True) if f.path == old]
    assert [f.status for f in done] == ["cleaned"] and not old.exists()
