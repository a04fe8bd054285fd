"""Cost of the blinding chapter per model, the engine's batched path against the old one, and what bfloat16 does.

For each model: the same sample of the chapter's prompts (informed, told-to-ignore and blinded, from
data/blinding.yaml) is scored with `rmlib.engine.score_answers` (cache off) in float32 and in bfloat16, giving seconds
per prompt (wall, and CPU seconds of the process) in each dtype and the difference in P(yes) between them. That
difference is set beside the quantity the chapter measures: the spread of P(yes) across the descriptors of one template (SD over descriptors, mean over the
sampled template x axis cells, float32). A dtype whose rounding moves P(yes) by as much as the descriptors do cannot
measure their disparity. Each model runs in its own subprocess (its own memory and model cache).

Old path against new (#17), side by side in one process, in float32: the chapter's three `score_answers` calls for
one model (blinded; informed and told-to-ignore; counterfactual, built from the replica's answers) through
`score_answers` as it was at ``--baseline`` (a git revision; its answers.py is loaded from git beside the current
one; default b98b75e: many prompts per forward, every prompt whole) and as it is now (shared openings run once,
:mod:`rmlib.engine.prefix_tree`), alternating old, new, old, new; the ratios of their wall and CPU seconds, and the
largest difference in P(yes) between them. ``--per-domain 2 --axes race_ethnicity gender_and_sex`` is the full
chapter's design (200 prompts a model).

    python benchmarks/blinding_cost.py [--models ...] [--per-domain 1] [--axes religion age] [--baseline REV]

Writes benchmarks/out/blinding_cost.json and prints a table, with the load average before and after each model.
The chapter's full run costs about (templates x (3 x descriptors + 1) + templates x descriptors) prompts per usable
model; the table extrapolates that from the float32 time.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

MODELS = ["smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct", "gemma3-270m"]
BASELINE = "b98b75e"  # many prompts per forward, no shared openings (9371b3e: one prompt per forward)


def baseline_score_answers(rev: str):
    """`score_answers` of revision `rev`, loaded from git as its own module (it imports today's kernels and store,
    which kept the functions it calls)."""
    import types

    root = Path(__file__).resolve().parent.parent
    src = subprocess.run(["git", "show", f"{rev}:src/rmlib/engine/answers.py"], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    mod = types.ModuleType("rmlib.engine._answers_baseline")
    mod.__file__ = f"<{rev}:src/rmlib/engine/answers.py>"
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)
    return mod.score_answers


def chapter_calls(design, lm) -> list[list[str]]:
    """The prompts of the chapter's three `score_answers` calls for one usable model, as `score_model` makes them:
    the blinded prompts, then informed and told-to-ignore, then the counterfactual prompts (built here from the
    replica's P(yes) under `lm`, float32, as the chapter does)."""
    from rmbook.chapters.blinding.prompts import counterfactual_prompts, decision_prompts, replica_answers
    from rmbook.chapters.blinding.scores import p_yes
    from rmlib.data.kinds import LM_LOGPROB, RM_SCORE
    from rmlib.engine import score_answers

    prompts = decision_prompts(design)
    blinded = list(dict.fromkeys(prompts.loc[prompts["condition"] == "blinded", "prompt"]))
    rows = score_answers(lm, blinded, list(design.answers), cache=False, progress=False)
    kind = RM_SCORE if lm.head == "rm" else LM_LOGPROB
    got = p_yes(rows.assign(reward=rows["score" if lm.head == "rm" else "logprob"], reward_kind=kind), design.answers)
    table = prompts[prompts["condition"] == "blinded"].merge(got, on="prompt")
    counterfactual = counterfactual_prompts(design, replica_answers(table, design.answers))
    rest = prompts.loc[prompts["condition"].isin(["informed", "told_to_ignore"]), "prompt"]
    return [blinded, list(dict.fromkeys(rest)), list(dict.fromkeys(counterfactual["prompt"]))]


def old_vs_new(lm, calls, answers, rev: str, repeats: int = 2) -> dict:
    """Wall and CPU seconds per prompt of the old and the new path over the chapter's calls (alternating, best of
    `repeats` each), their ratios, max |P(yes) old - P(yes) new|, and the load average before and after."""
    import numpy as np
    from scipy.special import expit

    from rmlib.engine import score_answers

    paths = {"old": baseline_score_answers(rev), "new": score_answers}
    col = "score" if lm.head == "rm" else "logprob"
    best, p = {}, {}
    load = [os.getloadavg()[0]]
    for _ in range(repeats):
        for name, fn in paths.items():
            wall = cpu = 0.0
            values = []
            for prompts in calls:  # one score_answers call each, as the chapter makes them
                t0, c0 = time.perf_counter(), time.process_time()
                df = fn(lm, prompts, answers, cache=False, progress=False)
                wall, cpu = wall + time.perf_counter() - t0, cpu + time.process_time() - c0
                wide = df.pivot(index="prompt", columns="answer", values=col).loc[prompts, answers].to_numpy(float)
                values.append(expit(wide[:, 0] - wide[:, 1]))
            w, c = best.get(name, (np.inf, np.inf))
            best[name] = (min(w, wall), min(c, cpu))
            p[name] = np.concatenate(values)
    load.append(os.getloadavg()[0])
    n = sum(map(len, calls))
    return {"old_wall_s_per_prompt": best["old"][0] / n, "old_cpu_s_per_prompt": best["old"][1] / n,
            "new_wall_s_per_prompt": best["new"][0] / n, "new_cpu_s_per_prompt": best["new"][1] / n,
            "wall_ratio_old_over_new": best["old"][0] / best["new"][0],
            "cpu_ratio_old_over_new": best["old"][1] / best["new"][1],
            "new_wall_s_chapter_calls": best["new"][0], "old_wall_s_chapter_calls": best["old"][0],
            "p_yes_max_abs_diff_old_new": float(np.abs(p["old"] - p["new"]).max()),
            "compare_load": load, "compare_prompts": n, "compare_calls": [len(c) for c in calls], "baseline": rev}


def one(model: str, per_domain: int, axes: list[str], dtypes: list[str], baseline: str | None = None) -> dict:
    import numpy as np

    from rmbook.chapters.blinding.prompts import decision_prompts, load_design
    from rmbook.chapters.blinding.scores import p_yes
    from rmlib.data.kinds import LM_LOGPROB, RM_SCORE
    from rmlib.engine import score_answers
    from rmlib.models import LoadOptions, cached_model

    design = load_design().select(per_domain, axes)
    prompts = decision_prompts(design)
    unique = list(dict.fromkeys(prompts["prompt"]))
    out = {"model": model, "n_prompts": len(unique), "load_before": os.getloadavg()[0]}
    p = {}
    for dtype in dtypes:
        lm = cached_model(model, LoadOptions(dtype=dtype))
        score_answers(lm, unique[:1], list(design.answers), cache=False, progress=False)  # warm-up
        if baseline and dtype == "float32":
            out.update(old_vs_new(lm, chapter_calls(design, lm), list(design.answers), baseline))
        t0, c0 = time.perf_counter(), time.process_time()
        rows = score_answers(lm, unique, list(design.answers), cache=False, progress=False)
        out[f"s_per_prompt_{dtype}"] = (time.perf_counter() - t0) / len(unique)
        # CPU seconds of this process (all its threads): less sensitive than wall time to other work on the machine
        out[f"cpu_s_per_prompt_{dtype}"] = (time.process_time() - c0) / len(unique)
        kind = RM_SCORE if lm.head == "rm" else LM_LOGPROB
        p[dtype] = p_yes(rows.assign(reward=rows["score" if lm.head == "rm" else "logprob"], reward_kind=kind),
                         design.answers).set_index("prompt")["p_yes"].reindex(unique)
    table = prompts[prompts["condition"] == "informed"].assign(p=lambda d: d["prompt"].map(p["float32"]))
    spread = table.groupby(["template", "axis"])["p"].std(ddof=0).mean()
    out.update(load_after=os.getloadavg()[0], descriptor_sd_float32=float(spread),
               mean_p_yes=float(np.mean(p["float32"])))
    if "bfloat16" in p:
        diff = (p["bfloat16"] - p["float32"]).abs()
        out.update(bf16_abs_diff_mean=float(diff.mean()), bf16_abs_diff_max=float(diff.max()),
                   noise_to_signal=float(diff.mean() / spread) if spread > 0 else None,
                   bf16_speedup=out["s_per_prompt_float32"] / out["s_per_prompt_bfloat16"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--per-domain", type=int, default=1, help="templates per domain (4 domains)")
    ap.add_argument("--axes", nargs="+", default=["religion", "age"])
    ap.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"], help="float32 first (the chapter's)")
    ap.add_argument("--baseline", default=BASELINE, help="git revision of the old path ('' to skip the comparison)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.per_domain, args.axes, args.dtypes, args.baseline or None)))
        return 0
    rows = []
    for m in args.models:
        cmd = [sys.executable, __file__, "--one", m, "--per-domain", str(args.per_domain), "--axes", *args.axes,
               "--dtypes", *args.dtypes, "--baseline", args.baseline]
        env = {**os.environ, "TQDM_DISABLE": "1"}
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if res.returncode != 0:
            print(f"{m}: failed\n{res.stderr[-2000:]}", file=sys.stderr)
            continue
        rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        bf16 = (f"  bf16 {r['s_per_prompt_bfloat16']:.3f} s/prompt  |dP(yes)| bf16 vs fp32 mean "
                f"{r['bf16_abs_diff_mean']:.4f} max {r['bf16_abs_diff_max']:.4f}" if "bf16_speedup" in r else "")
        print(f"{m:32s} {r['n_prompts']:4d} prompts  fp32 {r['s_per_prompt_float32']:.3f} s/prompt "
              f"({r['cpu_s_per_prompt_float32']:.3f} CPU s){bf16}  "
              f"descriptor SD {r['descriptor_sd_float32']:.4f}  load {r['load_before']:.1f}->{r['load_after']:.1f}",
              flush=True)
        if "wall_ratio_old_over_new" in r:
            print(f"{'':32s} old/new ({r['baseline']} vs now, fp32, {r['compare_prompts']} prompts in calls of "
                  f"{r['compare_calls']}): wall "
                  f"{r['old_wall_s_per_prompt']:.3f}/{r['new_wall_s_per_prompt']:.3f} s/prompt = "
                  f"{r['wall_ratio_old_over_new']:.2f}x, CPU {r['old_cpu_s_per_prompt']:.3f}/"
                  f"{r['new_cpu_s_per_prompt']:.3f} = {r['cpu_ratio_old_over_new']:.2f}x, max |dP(yes)| "
                  f"{r['p_yes_max_abs_diff_old_new']:.1e}, load {r['compare_load'][0]:.1f}->{r['compare_load'][1]:.1f}",
                  flush=True)
    out = Path(__file__).parent / "out" / "blinding_cost.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
