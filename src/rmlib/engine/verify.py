"""`rmlib verify`: check everything in the cache against the hashes recorded when it was written.

What is checked (quick, the default; then what --full adds), and what a failure leads to:

* sweeps/, answers/, gcg/ (GCG searches) and the answers cached inside trained checkpoints: the sha256 of every shard, meta.json and
  COMPLETE (--full: decode every shard and check its key, finite values and token ids). A corrupt result is moved
  aside; the next run of the same call recomputes only the damaged shards.
* dequantized/ (embedded models: their weights per dtype, and their tokenizers converted from the GGUF): sizes,
  sampled sha256 and the source GGUF's sha256 (--full: every byte). A corrupt copy is rebuilt from the GGUF.
* gguf/ (multi-part GGUFs joined in the cache): the size (--full: the pinned sha256). Joined again if damaged.
* rms/ (trained checkpoints): sizes and sampled sha256 of every file (--full: every byte). A corrupt checkpoint
  is reported (loading refuses it); retraining repairs it.
* rms/<run>/trainer/checkpoint-N (the trainer's resume checkpoints): the same, against the hashes recorded when the
  trainer saved them. A corrupt one is reported; the next train() of the run sets it aside and resumes from the
  last intact one (or step 0). Ones train() set aside (``<run>/checkpoint-N.corrupt-*``) are removed.

A check that reads only part of a file (quick: sampled blocks of model files, a joined GGUF's size) that finds
nothing says "sampled: no damage found", not "intact": only --full, which hashes every byte, can say "intact".

* the folders of stored records that plug-ins name (the ``rmlib.results_folders`` entry points: the book's results
  and its reruns'), or ``--results DIR``: each record's JSON against the sha256 written with it
  (:func:`verify_results`). A changed file is reported with how to make it again, in the words of the plug-in that
  named the folder (the book: the chapter to rerun; its stamp is stale, so ``make book`` reruns that chapter). A
  file that carries no record's schema tag and that the plug-in does not claim is reported as no record.

Interrupted results and orphaned temporary files of killed runs are reported too (temporary files are removed).
A symlink that leads out of the cache is reported as refused and never followed: nothing outside the cache is read,
moved or deleted.
Nothing is modified with repair=False (`--dry-run`).
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow.parquet as pq

from rmlib import config
from rmlib.engine.store import digest
from rmlib.models.embedded import build_dequantized, build_tokenizer, dequantized_path, tokenizer_path
from rmlib.models.gguf import EMBEDDED, EmbeddedModelError, _verify
from rmlib.registry import get_spec, registry
from rmlib.storage import atomic
from rmlib.storage.integrity import MANIFEST, check_manifest, read_manifest, sha256_file
from rmlib.storage.records import is_tagged, record_problem
from rmlib.storage.shards import FORMAT, CorruptShardError, ShardError, ShardStore

INTACT, CORRUPT, REPAIRED, INCOMPLETE, UNVERIFIED, CLEANED, REFUSED = (
    "intact", "corrupt", "repaired", "incomplete", "unverified", "cleaned", "refused")
Remake = Callable[[Path], str | None]  # a results folder's file -> how it is made again (None: not its)
SAMPLED = "sampled: no damage found"  # a quick check that read only part of the files: not proof they are intact
FULL_HINT = "run `rmlib verify --full` to hash every byte"


@dataclass
class Finding:
    kind: str      # sweep | answers | gcg | dequantized | gguf | checkpoint | resume | temp | link
    path: Path
    status: str    # intact | sampled: no damage found | corrupt | repaired | incomplete | unverified | cleaned | refused
    detail: str = ""


def verify_cache(root: str | Path | None = None, full: bool = False, repair: bool = True) -> list[Finding]:
    """Check every cached sweep, answer set, de-quantised model, joined GGUF and trained checkpoint. A symlink that
    leads out of the cache is reported and never followed (:func:`_links_out`): verify repairs by moving, renaming
    and deleting, and must not do that to files it does not own."""
    root = Path(root) if root is not None else config.cache_dir()
    findings, inside = _links_out(root), _inside(root)
    for kind, sub in (("sweep", "sweeps"), ("answers", "answers"), ("gcg", "gcg")):
        folder = root / sub
        if not inside(folder):
            continue
        findings += _temp_files(folder, repair)
        for d in sorted(p for p in folder.glob("*") if p.is_dir() and not p.name.startswith(".") and inside(p)):
            findings += _temp_files(d, repair)
            findings.append(_check_result(kind, d, full, repair))
    if inside(root / "dequantized"):
        findings += _temp_files(root / "dequantized", repair)
        findings += _old_dequantized_copies(root / "dequantized", repair, inside)
        for d in sorted(p for p in (root / "dequantized").glob("*") if p.is_dir() and not p.name.startswith(".")
                        and ".corrupt-" not in p.name and inside(p)):
            findings.append(_check_dequantized(d, full, repair))
    if inside(root / "gguf"):
        findings += _check_ggufs(root / "gguf", full, repair)
    rms = root / "rms"
    if not inside(rms):
        return findings
    findings += _temp_files(rms, repair)
    for run in sorted(p for p in rms.glob("*") if p.is_dir() and not p.name.startswith(".") and inside(p)):
        findings += _temp_files(run, repair)
        steps = sorted((p for p in run.glob("step-*") if p.name[5:].isdigit() and inside(p)),
                       key=lambda p: int(p.name[5:]))
        for d in [run, *steps]:
            if (d / "config.json").exists() or (d / MANIFEST).exists():
                findings.append(_check_checkpoint(d, full))
            if not inside(d / "answers"):
                continue
            findings += _temp_files(d / "answers", repair)
            for a in sorted(p for p in (d / "answers").glob("*") if p.is_dir() and not p.name.startswith(".")
                            and inside(p)):
                findings.append(_check_result("answers", a, full, repair))  # an rmlib-trained RM's answers are cached in its folder
        if inside(run / "trainer"):
            findings += _resume_checkpoints(run, full, repair, inside)
    return findings


def _inside(root: Path):
    """A test of whether a path, links resolved, stays inside ``root`` (a path that does not exist does)."""
    top = root.resolve()

    def inside(p: Path) -> bool:
        return not p.exists() or p.resolve().is_relative_to(top)
    return inside


def _links_out(root: Path) -> list[Finding]:
    """Every symlink under ``root`` whose target lies outside it, as a finding: reported, never followed, nothing
    done to it or to what it points at (the walk does not follow links)."""
    top, out = root.resolve(), []
    for here, dirs, files in os.walk(root) if root.is_dir() else []:
        for name in [*dirs, *files]:
            p = Path(here) / name
            if p.is_symlink() and not p.resolve().is_relative_to(top):
                out.append(Finding("link", p, REFUSED, f"a symlink out of the cache, to {p.resolve()}: not followed, "
                                                       "and nothing there was checked or changed; replace it with "
                                                       "the folder itself to have it verified"))
    return out


def _resume_checkpoints(run: Path, full: bool, repair: bool, inside=lambda p: True) -> list[Finding]:
    """The trainer's resume checkpoints of one run (rmlib.train.resume), and the damaged ones train() set aside."""
    out = _temp_files(run / "trainer", repair)
    for d in sorted((p for p in (run / "trainer").glob("checkpoint-*") if p.is_dir() and p.name[11:].isdigit()
                     and inside(p)),
                    key=lambda p: int(p.name[11:])):
        if not (d / "trainer_state.json").exists():
            out.append(Finding("resume", d, INCOMPLETE, "half-saved (killed while saving); train() never resumes "
                                                        "from it"))
        elif read_manifest(d) is None:
            out.append(Finding("resume", d, UNVERIFIED, "no recorded hashes (an older rmlib, or killed before they "
                                                        "were written): train() sets it aside, not resuming from it"))
        elif problems := check_manifest(d, full=full, memo=False):
            out.append(Finding("resume", d, CORRUPT, "; ".join(problems[:3]) + " (the next train() of this run sets it "
                                                   "aside and resumes from the last intact one, or from step 0)"))
        else:
            out.append(Finding("resume", d, INTACT if full else SAMPLED,
                               "every byte hashed" if full else f"sizes and sampled hashes; {FULL_HINT}"))
    aside = sorted(p for p in run.glob("checkpoint-*.corrupt-*") if p.is_dir() and not p.is_symlink() and inside(p))
    if repair:
        for p in aside:
            shutil.rmtree(p, ignore_errors=True)
    return out + [Finding("resume", p, CLEANED if repair else CORRUPT, "damaged resume checkpoint set aside by "
                          "train()" + (" (removed)" if repair else " (dry run: left in place)")) for p in aside]


def _old_dequantized_copies(folder: Path, repair: bool, inside=lambda p: True) -> list[Finding]:
    """Damaged de-quantised copies that older rmlib versions moved aside and kept (``<name>.corrupt-*``).

    They are derived from the GGUF and never read again; each can hold gigabytes, so a repair deletes them. A
    symlink is no copy rmlib moved aside: one out of the cache is reported by :func:`_links_out`, and none is ever
    reported as removed (rmtree refuses a link, which ``ignore_errors`` hid: "cleaned ... (removed)", #62)."""
    old = sorted(p for p in folder.glob("*.corrupt-*") if p.is_dir() and not p.is_symlink() and inside(p)) \
        if folder.is_dir() else []
    if repair:
        for p in old:
            shutil.rmtree(p, ignore_errors=True)
    what = "damaged copy moved aside by an older rmlib"
    return [Finding("dequantized", p, CORRUPT, f"{what} (dry run: left in place)") if not repair else
            Finding("dequantized", p, CORRUPT, f"{what} (could not be removed)") if p.exists() else
            Finding("dequantized", p, CLEANED, f"{what} (removed)") for p in old]


def _temp_files(folder: Path, repair: bool) -> list[Finding]:
    entries = folder.iterdir() if folder.is_dir() else []
    orphans = [p for p in entries if p.name.startswith(".") and atomic.is_orphan(p)]
    if repair:
        atomic.remove_orphans(folder)
    return [Finding("temp", p, CLEANED if repair else CORRUPT, "temporary file of a killed run"
                    + (" (removed)" if repair else "")) for p in orphans]


def _check_result(kind: str, d: Path, full: bool, repair: bool) -> Finding:
    store = ShardStore(d, {})
    if not store.complete:
        n = len(list(d.glob("shard-*-*.parquet")))
        return Finding(kind, d, INCOMPLETE, f"{n} shard(s) so far; the same call resumes it")
    try:
        info = json.loads((d / "COMPLETE").read_text())
    except (ValueError, UnicodeDecodeError):
        info = {"format": FORMAT}
    if info.get("format") != FORMAT:
        return Finding(kind, d, UNVERIFIED, "written by an older rmlib without hashes; no current key points here "
                                            "(delete it to reclaim the space)")
    if not repair:
        return _check_result_dry(kind, d, info, full)
    try:
        df = store.load(check_only=not full)
    except CorruptShardError as exc:
        return Finding(kind, d, CORRUPT, f"{exc}; the next run of the same call recomputes them")
    except ShardError as exc:
        return Finding(kind, d, CORRUPT, str(exc))
    detail = _describe(d)
    if full:
        problems = _decoded_problems(d, df)
        if problems:
            (d / "COMPLETE").unlink(missing_ok=True)
            return Finding(kind, d, CORRUPT, "; ".join(problems) + " (COMPLETE removed: the next run recomputes it)")
        detail += f", {len(df)} rows decoded"
    listed = {e["file"] for e in info.get("shards", [])}
    extra = [p for p in d.glob("shard-*.parquet") if p.name not in listed]
    for p in extra:  # a second writer's copy of a shard (before writers of one key shared the work): never read
        p.unlink(missing_ok=True)
    if extra:
        detail += f"; removed {len(extra)} unreferenced shard cop{'y' if len(extra) == 1 else 'ies'}"
    return Finding(kind, d, INTACT, detail)


def _check_result_dry(kind: str, d: Path, info: dict, full: bool) -> Finding:
    bad = [e["file"] for e in info.get("shards", []) if not (d / e["file"]).exists()
           or sha256_file(d / e["file"]) != e["sha256"]]
    if (d / "meta.json").exists() and sha256_file(d / "meta.json") != info.get("meta_sha256"):
        bad.append("meta.json")
    if bad:
        return Finding(kind, d, CORRUPT, f"{', '.join(bad)} failed the sha256 check (dry run: left in place)")
    return Finding(kind, d, INTACT, _describe(d))


def _describe(d: Path) -> str:
    try:
        meta = json.loads((d / "meta.json").read_text())
    except (OSError, ValueError):
        return ""
    what = meta.get("prompt") or f"{meta.get('n_prompts')} prompts x {meta.get('n_answers')} answers"
    return f"{meta.get('model')} · {meta.get('kind')} · {meta.get('method', '')} · {str(what)[:50]!r}"


def _decoded_problems(d: Path, df) -> list[str]:
    problems = []
    meta = json.loads((d / "meta.json").read_text())
    if meta.get("key") != d.name:
        problems.append(f"meta.json names key {meta.get('key')}, the folder is {d.name}")
    for name in json.loads((d / "COMPLETE").read_text())["shards"]:
        embedded = json.loads((pq.read_schema(d / name["file"]).metadata or {}).get(b"rmlib", b"{}"))
        if embedded.get("key") != d.name:
            problems.append(f"{name['file']} was written for key {embedded.get('key')}")
    values = [c for c in ("score", "logit", "logprob") if c in df]
    if values and not np.isfinite(df[values].to_numpy(dtype=np.float64)).all():
        problems.append("non-finite values")
    if "token_id" in df and meta.get("candidates"):
        if digest(df["token_id"].to_numpy()) != meta["candidates"]:
            problems.append("the token ids are not the candidates in meta.json")
    return problems


def _check_dequantized(d: Path, full: bool, repair: bool) -> Finding:
    import torch
    manifest = read_manifest(d) or {}
    match = None
    for spec in registry().values():
        if spec.source != "embedded":
            continue
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            if dequantized_path(spec, dtype).resolve() == d.resolve():
                match = (spec, dtype)
        if tokenizer_path(spec).resolve() == d.resolve():
            match = (spec, None)  # the GGUF's tokenizer, converted once (rmlib.models.embedded.tokenizer_dir)
    if match is None:
        return Finding("dequantized", d, UNVERIFIED, "not a copy of any pinned embedded model (an older GGUF?); "
                                                     "delete it to reclaim the space")
    spec, dtype = match
    gg = EMBEDDED[spec.gguf]
    problems = []
    if manifest.get("source_sha256") != gg.sha256:
        problems.append("no manifest naming the pinned GGUF (built by an older rmlib, or damaged)")
    else:
        problems = check_manifest(d, full=full, memo=False)
    if not problems:
        return Finding("dequantized", d, INTACT if full else SAMPLED,
                       f"{spec.id} {str(dtype).removeprefix('torch.') if dtype else 'tokenizer'}, from GGUF "
                       f"{gg.sha256[:12]}"
                       + (", every byte hashed" if full else f", sizes and sampled hashes; {FULL_HINT}"))
    if not repair:
        return Finding("dequantized", d, CORRUPT, "; ".join(problems[:3]) + " (dry run: left in place)")
    moved = atomic.quarantine(d)
    try:
        with atomic.file_lock(d.parent / f".{d.name}.lock"):
            if dtype is None:
                build_tokenizer(get_spec(spec.id), d)
            else:
                build_dequantized(get_spec(spec.id), dtype, d, gg)
    except Exception as exc:  # e.g. the embedded package was uninstalled
        return Finding("dequantized", d, CORRUPT, f"{'; '.join(problems[:3])}; moved to {moved.name}, and "
                                                  f"rebuilding failed: {exc}")
    shutil.rmtree(moved, ignore_errors=True)
    return Finding("dequantized", d, REPAIRED, f"{'; '.join(problems[:3])}; rebuilt from the GGUF")


def _check_ggufs(folder: Path, full: bool, repair: bool) -> list[Finding]:
    out = _temp_files(folder, repair)
    for gg in EMBEDDED.values():
        path = folder / gg.filename
        if len(gg.parts) == 1 or not path.exists():
            continue
        size_ok = path.stat().st_size == gg.size
        try:
            if not size_ok or full:
                _verify(path, gg)
            out.append(Finding("gguf", path, INTACT if full else SAMPLED,
                               gg.name + (", sha256 checked" if full else f", size checked; {FULL_HINT}")))
        except EmbeddedModelError as exc:
            if not repair:
                out.append(Finding("gguf", path, CORRUPT, f"{exc} (dry run: left in place)"))
                continue
            try:
                gg.path()  # re-joins a damaged cached copy from the installed parts
                out.append(Finding("gguf", path, REPAIRED, f"{exc}; joined again from the package parts"))
            except EmbeddedModelError as exc2:
                out.append(Finding("gguf", path, CORRUPT, str(exc2)))
    return out


def _check_checkpoint(d: Path, full: bool) -> Finding:
    if not (d / "rmlib_run.yaml").exists():
        return Finding("checkpoint", d, UNVERIFIED, "no rmlib_run.yaml: not an rmlib export")
    if read_manifest(d) is None:
        return Finding("checkpoint", d, UNVERIFIED, "exported by an older rmlib without recorded hashes "
                                                    "(retrain with overwrite=True to get them)")
    problems = check_manifest(d, full=full, memo=False)
    if problems:
        return Finding("checkpoint", d, CORRUPT, "; ".join(problems[:3]) + " (loading it is refused; restore it "
                                                                          "or retrain with overwrite=True)")
    return Finding("checkpoint", d, INTACT if full else SAMPLED,
                   "every byte hashed" if full else f"sizes and sampled hashes; {FULL_HINT}")


def verify_results(folder: str | Path, remake: Remake | None = None) -> list[Finding]:
    """Each stored record's JSON in ``folder`` (:mod:`rmlib.storage.records`) against the sha256 written with it:
    intact, or corrupt with how to make it again. ``remake(path)``: the words of whoever named the folder (the book
    says which chapter to rerun), None for a file that is none of theirs; without it, the record's writer. A file
    nobody claims that carries no schema tag is said to be no record, to be moved out. Nothing is changed: only the
    writer can write a record again."""
    folder = Path(folder)
    found = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        words = remake(p) if remake is not None else None
        if words is None and not is_tagged(p):
            words = (f"{p.name} is not a stored record (it carries no record's schema tag, and nothing that writes "
                     "into this folder claims it): move it out of the folder")
        problem = record_problem(p, remake=words)
        found.append(Finding("results", p, INTACT if problem is None else CORRUPT, problem or ""))
    return found


def print_report(findings: list[Finding], full: bool = False, out=None) -> int:
    """Print one line per finding and a summary; returns the exit status (1 if anything corrupt remains)."""
    import sys
    out = out or sys.stdout
    root = config.cache_dir()
    print(f"rmlib verify ({'full' if full else 'quick'}): {root}", file=out)
    for f in findings:
        try:
            rel = f.path.relative_to(root)
        except ValueError:
            rel = f.path
        print(f"  {f.status:<10} {f.kind:<11} {rel}  {f.detail}", file=out)
    counts = {s: sum(f.status == s for f in findings) for s in (INTACT, SAMPLED, CORRUPT, REPAIRED, INCOMPLETE,
                                                                UNVERIFIED, CLEANED, REFUSED)}
    label = {SAMPLED: "sampled (no damage found)"}
    print("summary: " + ", ".join(f"{n} {label.get(s, s)}" for s, n in counts.items()), file=out)
    if counts[SAMPLED]:
        print(f"{counts[SAMPLED]} model file set(s) were only sampled (sizes and some blocks), which can miss "
              f"damage: {FULL_HINT}", file=out)
    return 1 if counts[CORRUPT] else 0
