#!/usr/bin/env python3
"""Run every chapter on two versions of rmlib and diff what they computed: the proof that a refactor changed nothing.

Each side is a commit of this repository (checked out into a temporary worktree) or a worktree folder. The chapters
run with that side's own code, notebooks and parameter files, with this checkout's Python environment, in two sets:

* ``tiny``: every chapter with the defaults of its own parameters cell (what the tests run);
* ``full``: the published-mode chapters with their full-run parameters (``src/rmbook/chapters/<name>/params.yaml``, with
  ``MODE: published`` where a chapter has modes). Chapters that need trained RMs or whole-vocabulary sweeps of the
  embedded models are skipped, with the reason (:data:`FULL_SKIP`); the claims page then reads their tiny results,
  and the tiny set runs those chapters first when only the full set is asked for (:func:`run_plan`).

Each side writes, under its ``--out`` folder: ``<set>/results/<chapter>.json`` (the chapter's results JSON),
``<set>/<chapter>.glued.json`` (the values the page glued with myst_nb), the executed notebooks, ``run.json`` (what
ran, where, how long) and its own cache (``cache/``: nothing computed by one side is served to the other).
``diff`` compares two such folders value by value (exact by default; ``--rtol/--atol`` for floats) and prints every
path that differs (the diffing is DeepDiff's, :func:`compare` words it). Keys renamed on purpose are mapped first (:data:`RENAMES`) and listed in the report.

    python tools/results_diff.py run 9fd8614 --out /work/notes/results-before          # a commit
    python tools/results_diff.py run . --out /tmp/results-after --set tiny             # this worktree
    python tools/results_diff.py diff /work/notes/results-before /tmp/results-after
    python tools/results_diff.py compare 9fd8614 . --out /tmp/compare                  # run both, then diff
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deepdiff import DeepDiff
from deepdiff.operator import BaseOperator

REPO = Path(__file__).resolve().parents[1]
SETS = ("tiny", "full")

# Chapters that the full set does not run, and why (they are run in the tiny set).
FULL_SKIP = {
    "method": "sweeps the whole vocabularies of the embedded models and an RM that the finetuning chapter trains",
    "implicit_rewards": "sweeps the whole vocabularies of the three embedded LMs (no published mode)",
    "finetuning": "trains 18 reward models (about 45 minutes)",
    "implicit_vs_explicit": "trains a DPO reward model (the IM-RM) and scores ~1,000 pairs with it and its base (no published mode)",
    "reward_lens": "reads every layer of the RMs the finetuning chapter trains and of their base LMs (no published mode)",
    "blinding": "scores 200 decision prompts with each embedded LM and an RM the finetuning chapter trains (no published mode)",
}

# Result keys renamed on purpose ("one name per concept"): (chapter, dotted path in the old results, new path).
# Applied to the older side before comparing; the report lists them.
# A path segment ending in "[]" goes through every record of that list.
RENAMES: list[tuple[str, str, str]] = [
    ("big_two", "love_freedom[].score", "love_freedom[].reward"),  # the reward column is `reward` everywhere
    ("elo_misalignment", "topics.n_permutations", "topics.n_resamples"),  # one name for a resampling count (#26)
    # the chapters whose sentences are rendered from sections of their results (#26 item 2) moved these keys
    *[("method", k, f"extremes.{k}") for k in ("n_tokens", "best_token", "best_reward", "worst_token",
                                               "worst_reward")],
    ("method", "audit", "roundtrip.table"),
    ("longer_answers", "published", "published.table"), ("longer_answers", "comparison", "comparison.table"),
    ("longer_answers", "category_sharing", "sharing.table"),
    *[("longer_answers", k, f"search.{k}") for k in ("models", "absent", "prompts", "lengths", "restarts", "steps")],
    ("framing", "halves_summary", "halves_found.summary"), ("framing", "halves_outcome", "halves_found.outcome"),
    ("identity_terms", "n_terms", "terms.n_terms"), ("identity_terms", "n_flagged", "terms.n_flagged"),
    ("elo_misalignment", "n_items", "run.n_items"),
    ("elo_misalignment", "human_elo_same_across_prompts", "run.human_elo_same_across_prompts"),
    ("elo_misalignment", "agreement_median_rho", "agreement_summary.median_rho"),
    ("elo_misalignment", "n_agreement_cells", "agreement_summary.n_cells"),
    ("elo_misalignment", "n_agreement_ci_above_0", "agreement_summary.n_ci_above_0"),
    ("elo_misalignment", "aggregate_robustness", "robustness.table"),
    *[("elo_misalignment", k, f"robustness.{k}") for k in ("method_rho", "overlap_over", "overlap_under", "most_over",
                                                            "most_under")],
    ("elo_misalignment", "form_rank_diff", "forms.rank_diff"), ("elo_misalignment", "form_z_diff", "forms.z_diff"),
    ("elo_misalignment", "n_trajectory_items", "trajectories.n_items"),
    ("finetuning", "same_data", "training.same_data"), ("finetuning", "reward_kinds", "evaluation.reward_kinds"),
    ("finetuning", "spearman_acc_var", "accuracy_variance.rho"),
    # heterogeneity v2: each run's flat copies go, their sections (always there now) keep the numbers
    *[("heterogeneity", f"runs.{r}.{k}", f"runs.{r}.agreement.{k}") for r in ("published", "compute")
      for k in ("tau_min", "tau_median", "tau_max", "rbo_top_median", "rbo_bottom_median")],
    *[("heterogeneity", f"runs.{r}.partial_mantel", f"runs.{r}.designs.base_given_size") for r in ("published",
                                                                                                  "compute")],
    *[("heterogeneity", f"runs.{r}.mds_explained[{i}]", f"runs.{r}.mds.{axis}") for r in ("published", "compute")
      for i, axis in enumerate(("first_axis", "second_axis"))],
    # blinding v2: the prose's sections own what they state
    *[("blinding", k, f"setup.{k}") for k in ("n_templates", "n_descriptors", "axes", "domains", "dtype", "missing")],
    ("blinding", "tokens", "tokens.table"), ("blinding", "answers", "tokens.answers"),
    ("blinding", "behaviour", "behaviour.table"), ("blinding", "effects", "effects.table"),
    ("blinding", "verdicts", "verdicts.counts"), ("blinding", "backfires", "verdicts.backfires"),
    ("blinding", "paper_points", "points.rows"), ("blinding", "rm_preferences", "rms.table"),
    ("implicit_vs_explicit", "overlap", "overlap.table"),  # implicit_vs_explicit v2: the overlap's section
    # implicit_vs_explicit v3: training's `method` (which weights train) is `tuning`, in the section and in each run's
    # stored record (the sweep's `method` keeps its name)
    ("implicit_vs_explicit", "training.method", "training.tuning"),
    *[("implicit_vs_explicit", f"runs.{r}{k}.method", f"runs.{r}{k}.tuning") for r in ("ex", "im")
      for k in ("", ".config")],
    # good_teachers v3 and implicit_rewards v3: the flat copies of section fields go
    ("good_teachers", "absent_models", "run.absent"),
    ("good_teachers", "sampled_accuracy_max_gap", "accuracy.sampled_gap"),
    ("implicit_rewards", "within_min_tau", "logits.min_tau"),
    ("implicit_rewards", "zipf_lm_top", "zipf.lm_top"), ("implicit_rewards", "zipf_rm_top", "zipf.rm_top"),
    ("implicit_rewards", "pooled_tau", "logits.pooled_tau"), ("good_teachers", "mode", "run.mode"),  # v4 both
]

# What runs inside a side's tree (its own rmlib, notebooks and parameter files). Written for the book API of
# 9fd8614 (rmbook.book.run_notebook), of 07234f0 (rmlib.book.run_chapter) and of later versions (rmbook.book).
_RUNNER = r'''
import json, os, shutil, sys, time
from pathlib import Path

import rmlib
try:
    import rmbook.book as B
except ImportError:  # before the book left the library (07234f0 and earlier)
    import rmlib.book as B

tree, out, plan, skip_full = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
assert Path(rmlib.__file__).resolve().is_relative_to(tree.resolve()), (rmlib.__file__, tree)
run = getattr(B, "run_chapter", None) or B.run_notebook
log = json.loads((out / "run.json").read_text()) if (out / "run.json").is_file() else {"chapters": {}}
log.setdefault("chapters", {})
failed = False
for s, name in plan:
    folder = out / s
    results = folder / "results"
    results.mkdir(parents=True, exist_ok=True)
    entry = f"{s}/{name}"
    if (folder / f"{name}.done").is_file():
        print(f"[diff] {entry}: done earlier", flush=True)
        continue
    overrides = {}
    if s == "full":
        if name in skip_full:
            log["chapters"][entry] = {"skipped": skip_full[name]}
            print(f"[diff] {entry}: skipped ({skip_full[name]})", flush=True)
            continue
        if "MODE" in B.declared_parameters(name):
            overrides["MODE"] = "published"
        for src in B.reads_results(name):  # a skipped chapter's numbers come from the tiny set (run first)
            if not (results / f"{src}.json").is_file() and (out / "tiny" / "results" / f"{src}.json").is_file():
                shutil.copy(out / "tiny" / "results" / f"{src}.json", results / f"{src}.json")
    t0 = time.time()
    print(f"[diff] {entry}: running {json.dumps(overrides)}", flush=True)
    try:
        res = run(name, tiny=(s == "tiny"), overrides=overrides, output_dir=folder, force=True, log=print)
    except Exception as exc:  # the other chapters still run; the failure is recorded and ends the run with 1
        log["chapters"][entry] = {"failed": f"{type(exc).__name__}: {exc}"}
        (out / "run.json").write_text(json.dumps(log, indent=1, default=str))
        print(f"[diff] {entry}: FAILED: {exc}", flush=True)
        failed = True
        continue
    glued = B.glued(res.path)
    (folder / f"{name}.glued.json").write_text(json.dumps(glued, indent=1, sort_keys=True))
    log["chapters"][entry] = {"seconds": round(time.time() - t0, 1), "overrides": overrides,
                              "parameters": {k: v for k, v in res.parameters.items() if k != "RESULTS_DIR"}}
    (folder / f"{name}.done").write_text("")
    (out / "run.json").write_text(json.dumps(log, indent=1, default=str))
    print(f"[diff] {entry}: done in {time.time() - t0:.0f} s", flush=True)
sys.exit(1 if failed else 0)
'''


# What a side's tree says about its chapters: their run order and which results each reads.
_CHAPTERS = r'''
import json
try:
    import rmbook.book as B
except ImportError:
    import rmlib.book as B
names = B.in_run_order(B.chapters())
print(json.dumps({n: list(B.reads_results(n)) for n in names}))
'''


def run_plan(sets: list[str], reads: dict[str, list[str]], only: list[str] | None = None,
             skip_full: dict[str, str] = FULL_SKIP) -> list[tuple[str, str]]:
    """The (set, chapter) pairs to run, in order. ``reads`` maps each chapter, in run order, to the chapters whose
    results it reads. A full-set chapter that reads a skipped chapter's results gets that chapter's tiny results, so
    the tiny set runs those chapters first even when only the full set was asked for (claims reads three of them)."""
    names = [n for n in reads if not only or n in only]
    plan = [("tiny", n) for n in names] if "tiny" in sets else []
    if "full" in sets:
        if "tiny" not in sets:
            needed = {src for n in names if n not in skip_full for src in reads[n] if src in skip_full}
            plan += [("tiny", n) for n in reads if n in needed]
        plan += [("full", n) for n in names]
    return plan


# --------------------------------------------------------------------------- running one side

def _git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _data_dir() -> Path:
    env = os.environ.get("RMLIB_DATA_DIR")
    return Path(env).resolve() if env else REPO / "data" / "external"


def run_side(source: str, out: Path, sets: list[str], only: list[str] | None = None) -> Path:
    """Run the chapters of ``source`` (a commit or a worktree folder) into ``out``; returns ``out``."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    tmp = None
    if Path(source).is_dir():
        tree = Path(source).resolve()
    else:
        commit = _git("rev-parse", "--verify", f"{source}^{{commit}}")
        tmp = Path(tempfile.mkdtemp(prefix=f"results-diff-{commit[:8]}-"))
        tree = tmp / "tree"
        _git("worktree", "add", "--detach", str(tree), commit)
    try:
        commit = _git("rev-parse", "HEAD", cwd=tree)
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no", cwd=tree))
        info = {"source": source, "tree": str(tree), "commit": commit, "dirty": dirty, "sets": sets,
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "load_average": os.getloadavg()}
        log = out / "run.json"
        old = json.loads(log.read_text()) if log.is_file() else {}
        if old.get("commit") not in (None, commit):
            raise SystemExit(f"{out} holds results of commit {old['commit'][:10]}, not {commit[:10]}: use another --out")
        log.write_text(json.dumps({**old, **info}, indent=1))
        env = {**os.environ, "PYTHONPATH": str(tree / "src"), "RMLIB_CACHE_DIR": str(out / "cache"),
               "RMLIB_DATA_DIR": str(_data_dir()), "TQDM_DISABLE": "1"}
        reads = json.loads(subprocess.run([sys.executable, "-c", _CHAPTERS], cwd=tree, env=env, check=True,
                                          capture_output=True, text=True).stdout.splitlines()[-1])
        plan = run_plan(sets, reads, only)
        proc = subprocess.run([sys.executable, "-c", _RUNNER, str(tree), str(out), json.dumps(plan),
                               json.dumps(FULL_SKIP)], cwd=tree, env=env)
        if proc.returncode:
            raise SystemExit(f"some chapters failed on {source} (see {out / 'run.json'}); rerun to retry them")
    finally:
        if tmp is not None:
            _git("worktree", "remove", "--force", str(tree))
            shutil.rmtree(tmp, ignore_errors=True)
    return out


# --------------------------------------------------------------------------- diffing

def _put(data: dict, path: str, value) -> None:
    """Set dotted ``path`` in ``data`` to ``value``, creating the dicts on the way (a key moved into a section)."""
    *parents, last = path.split(".")
    for key in parents:
        data = data.setdefault(key, {})
    data[last] = value


_MOVED = object()  # a list item already moved by a ``key[i]`` rename


def _rename(data, old: str, new: str) -> bool:
    """Move the value at dotted path ``old`` to ``new`` (a segment ``key[]`` maps over the records of a list; below
    their common prefix, ``new`` may be deeper than ``old``: a key moved into a section). A last segment ``key[i]``
    moves item ``i`` of a list (a list split into named fields); the list goes once every item has moved. Data that
    already has ``new`` (a side written after the rename) is left as it is."""
    if _holds(data, new):
        return False
    head, _, rest = old.partition(".")
    index = re.fullmatch(r"(.+)\[(\d+)\]", head)
    if index and not rest:
        items, i = (data.get(index[1]) if isinstance(data, dict) else None), int(index[2])
        if not isinstance(items, list) or i >= len(items) or items[i] is _MOVED:
            return False
        _put(data, new, items[i])
        items[i] = _MOVED
        if all(x is _MOVED for x in items):
            del data[index[1]]
        return True
    if head.endswith("[]"):
        items = data.get(head[:-2]) if isinstance(data, dict) else None
        if not isinstance(items, list):
            return False
        new_rest = new.partition(".")[2]
        return any([_rename(item, rest, new_rest) for item in items])
    if not rest:
        if not isinstance(data, dict) or head not in data:
            return False
        _put(data, new, data.pop(head))
        return True
    return isinstance(data, dict) and head in data and _rename(data[head], rest, new.partition(".")[2])


def _holds(data, dotted: str) -> bool:
    """Whether ``data`` has a value at plain dotted path ``dotted`` (a path through lists is never held: its records
    are checked one by one)."""
    for key in dotted.split("."):
        if "[" in key or not isinstance(data, dict) or key not in data:
            return False
        data = data[key]
    return True


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class _CloseNumbers(BaseOperator):
    """Two numbers within the tolerances are equal (exact when both are 0), an int and a float of one value too (JSON
    writes 3 and 3.0 alike); a bool is not the number 1."""

    def __init__(self, rtol: float, atol: float):
        super().__init__()
        self.rtol, self.atol = rtol, atol

    def match(self, level) -> bool:
        return _is_number(level.t1) and _is_number(level.t2)

    def give_up_diffing(self, level, diff_instance) -> bool:
        return level.t1 == level.t2 or math.isclose(level.t1, level.t2, rel_tol=self.rtol, abs_tol=self.atol)


def _dotted(path: list) -> str:
    """DeepDiff's path as a list (``['y', 2, 'z']``) written as this report writes it: ``y[2].z``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def _shown(value) -> str:
    return json.dumps(value, default=str)[:80]


def compare(a, b, path: str = "", rtol: float = 0.0, atol: float = 0.0) -> list[str]:
    """Every difference between two JSON values, as 'path: a != b' lines (numbers within the tolerances are equal),
    sorted by path. The diffing is DeepDiff's (lists in order, an inserted or removed item found as such rather
    than as every later item changed); this function only words its findings."""
    found = DeepDiff(a, b, view="tree", custom_operators=[_CloseNumbers(rtol, atol)],
                     threshold_to_diff_deeper=0)  # a dict whose keys all differ: each key, not the whole dict
    lines = []
    for kind, levels in found.items():
        for level in levels:
            where = path + _dotted(level.path(output_format="list"))
            if kind.endswith("_removed"):
                lines.append(f"{where}: only before ({_shown(level.t1)})")
            elif kind.endswith("_added"):
                lines.append(f"{where}: only after ({_shown(level.t2)})")
            elif _is_number(level.t1) and _is_number(level.t2):
                lines.append(f"{where}: {level.t1!r} != {level.t2!r} (difference {level.t2 - level.t1:.3g})")
            else:
                lines.append(f"{where}: {_shown(level.t1)} != {_shown(level.t2)}")
    return sorted(lines)


def diff_sides(before: Path, after: Path, rtol: float = 0.0, atol: float = 0.0, renames=RENAMES) -> tuple[str, int]:
    """A report of every difference between two sides' results and glued values, and the number of differences."""
    before, after = Path(before), Path(after)
    lines, n_diff = [], 0
    info = {side: json.loads((p / "run.json").read_text()) for side, p in (("before", before), ("after", after))}
    for side, i in info.items():
        lines.append(f"{side}: {i['source']} = {i['commit'][:10]}{' (uncommitted changes)' if i.get('dirty') else ''}")
    lines.append(f"floats compared {'exactly' if not (rtol or atol) else f'with rtol={rtol:g}, atol={atol:g}'}")
    if renames:
        lines.append("keys renamed on purpose (mapped before comparing): " + "; ".join(
            f"{c}: {o} -> {n}" for c, o, n in renames))
    for s in SETS:
        missing = [side for side, p in (("before", before), ("after", after)) if not (p / s).is_dir()]
        if missing:
            lines.append(f"{s}: not run on the {' and '.join(missing)} side")
            continue
        files = sorted({p.relative_to(before / s) for p in (before / s).glob("results/*.json")}
                       | {p.relative_to(before / s) for p in (before / s).glob("*.glued.json")}
                       | {p.relative_to(after / s) for p in (after / s).glob("results/*.json")}
                       | {p.relative_to(after / s) for p in (after / s).glob("*.glued.json")})
        if not files:
            continue
        same = []
        for rel in files:
            pa, pb = before / s / rel, after / s / rel
            if not pa.is_file() or not pb.is_file():
                lines.append(f"{s}/{rel}: only {'after' if pb.is_file() else 'before'}")
                n_diff += 1
                continue
            # a side's own folder (its cache) named in a value, e.g. an error message: the same text on both sides
            a = json.loads(pa.read_text().replace(json.dumps(str(before))[1:-1], "<side>"))
            b = json.loads(pb.read_text().replace(json.dumps(str(after))[1:-1], "<side>"))
            for side in (a, b):  # a results file's hash of its content: any change shows in the content itself
                if isinstance(side, dict):
                    side.pop("sha256", None)
            chapter = rel.name.split(".")[0]
            for c, old, new in renames:
                if c == chapter and rel.parent.name == "results":
                    _rename(a, old, new)
            found = compare(a, b, rtol=rtol, atol=atol)
            if found:
                n_diff += len(found)
                lines.append(f"{s}/{rel}: {len(found)} difference(s)")
                lines += [f"    {d}" for d in found]
            else:
                same.append(str(rel))
        lines.append(f"{s}: {len(same)} of {len(files)} files identical")
        skipped = {k: v["skipped"] for k, v in info["after"].get("chapters", {}).items()
                   if k.startswith(f"{s}/") and "skipped" in v}
        for k, why in skipped.items():
            lines.append(f"{k}: not run ({why})")
        failed = {k: v["failed"] for k, v in info["after"].get("chapters", {}).items()
                  if k.startswith(f"{s}/") and "failed" in v}
        for k, why in failed.items():
            lines.append(f"{k}: FAILED on the after side ({why[:200]})")
            n_diff += 1
    lines.append("result: no differences" if n_diff == 0 else f"result: {n_diff} difference(s)")
    return "\n".join(lines), n_diff


# --------------------------------------------------------------------------- command line

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="results_diff.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def run_args(p):
        p.add_argument("--set", choices=[*SETS, "both"], default="both", help="tiny, full or both (default)")
        p.add_argument("--only", nargs="*", default=None, help="chapter names (default: all)")

    r = sub.add_parser("run", help="run one side's chapters into a folder")
    r.add_argument("source", help="a commit of this repository, or a worktree folder")
    r.add_argument("--out", required=True, type=Path)
    run_args(r)

    def tolerances(p):
        p.add_argument("--rtol", type=float, default=0.0, help="relative tolerance for floats (default: exact)")
        p.add_argument("--atol", type=float, default=0.0, help="absolute tolerance for floats (default: exact)")
        p.add_argument("--report", type=Path, default=None, help="also write the report to this file")

    d = sub.add_parser("diff", help="compare two folders written by `run`")
    d.add_argument("before", type=Path)
    d.add_argument("after", type=Path)
    tolerances(d)
    c = sub.add_parser("compare", help="run two sides, then diff them")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--out", required=True, type=Path, help="folder for both sides (before/, after/)")
    run_args(c)
    tolerances(c)
    args = ap.parse_args(argv)
    sets = list(SETS) if getattr(args, "set", "both") == "both" else [args.set]
    if args.cmd == "run":
        run_side(args.source, args.out, sets, args.only)
        return 0
    if args.cmd == "compare":
        before = run_side(args.before, args.out / "before", sets, args.only)
        after = run_side(args.after, args.out / "after", sets, args.only)
    else:
        before, after = args.before, args.after
    report, n = diff_sides(before, after, args.rtol, args.atol)
    print(report)
    if args.report:
        args.report.write_text(report + "\n")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
