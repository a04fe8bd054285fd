"""Compute-mode cost of the value-profile chapters (Big Two, MFD2, implicit rewards) for the embedded LMs.

Each model runs in its own subprocess so its peak memory (ru_maxrss) is its own. Per model: load time (the first
ever load also de-quantises the GGUF into the cache), then `score_answers` on a sample of lexicon words under a few
design prompts with the answer cache off, giving seconds per (word x prompt). The chapter defaults are then
extrapolated linearly (cost is one batched forward per group of answers, per prompt).

    python benchmarks/value_profiles_cost.py [--models ...] [--words 263] [--prompts 2]

Writes benchmarks/out/value_profiles_cost.csv and prints a table.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

EMBEDDED = ["smollm2-135m-instruct", "gemma3-270m", "qwen2.5-coder-0.5b-instruct"]
# (chapter, dictionary, words, prompts) of the full-run defaults in src/rmbook/chapters/*/params.yaml
DEFAULTS = [("big_two", "big2", 263, 4), ("moral_foundations", "mfd2", 200, 4),
            ("implicit_rewards (cold; warm: cached)", "big2+mfd2", 463, 4)]
PROMPTS = ["best_ever_one", "worst_ever_one", "greatest_ever_one", "bad_ever_one", "good_ever_one",
           "terrible_ever_one"]


def one(model: str, n_words: int, n_prompts: int) -> dict:
    from rmlib.config import cache_dir
    from rmlib.data import design_prompts, value_lexicon
    from rmlib.engine import score_answers
    from rmlib.models import load_model
    from rmlib.registry import get_spec

    spec = get_spec(model)
    warm = spec.source != "embedded" or any((cache_dir() / "dequantized").glob(f"{model}-*/config.json"))
    t0 = time.perf_counter()
    lm = load_model(model, head="lm")
    t_load = time.perf_counter() - t0
    words = value_lexicon("big2")["word"].tolist()[:n_words]
    prompts = design_prompts(PROMPTS[:max(2, n_prompts)])["prompt"].tolist()[:n_prompts]
    t0 = time.perf_counter()
    df = score_answers(lm, prompts, words, cache=False, progress=False)
    t_score = time.perf_counter() - t0
    return {"model": model, "dtype": str(lm.dtype).removeprefix("torch."), "vocab": int(lm.model.config.vocab_size),
            "dequantized_cache_warm": warm, "load_s": round(t_load, 1), "words": len(words),
            "prompts": len(prompts), "score_s": round(t_score, 1),
            "s_per_word_prompt": t_score / (len(words) * len(prompts)), "mean_tokens": float(df["n_tokens"].mean()),
            "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=EMBEDDED)
    ap.add_argument("--words", type=int, default=263)
    ap.add_argument("--prompts", type=int, default=2)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.words, args.prompts)))
        return 0
    import pandas as pd

    rows = []
    for m in args.models:
        proc = subprocess.run([sys.executable, __file__, "--one", m, "--words", str(args.words), "--prompts",
                               str(args.prompts)], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{m} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
            return 1
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    res = pd.DataFrame(rows)
    for chapter, _, n_w, n_p in DEFAULTS:
        res[f"{chapter}_default_s"] = (res["s_per_word_prompt"] * n_w * n_p).round(0)
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    res.to_csv(out / "value_profiles_cost.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(res)
    print("defaults (words x prompts):", {c: f"{w} x {p}" for c, _, w, p in DEFAULTS})
    return 0


if __name__ == "__main__":
    sys.exit(main())
