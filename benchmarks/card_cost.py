"""What a value card costs (#42): the standard card against the quick card (the baseline), both of one model in one
process, each from an empty answer cache, then the standard card again from its cache; and the cost model's estimate
for an 8B RM's card on one H200 (an estimate, not a measurement).

The model is loaded once before the timings (the process keeps it), and the de-quantised GGUF files are shared from
the project's cache, so the times are scoring and card-building only. Speed is reported as answers per second and as
a share of a bf16 matmul of the model's own MLP shape timed in the same run (FLOPs counted as 2 x non-embedding
parameters per answer position, the prompt's positions once per prompt: a lower bound of the work, so the share is too).

    .venv/bin/python benchmarks/card_cost.py [--model smollm2-135m-instruct]

Writes benchmarks/out/card_cost.json and prints the ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
LOAD_AT_START = os.getloadavg()
SHARED = ("dequantized", "gguf", "lexicons", "nltk_data")  # what a card reads but does not compute
RM_8B = "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2"


def fresh_cache(root: Path, real: Path) -> Path:
    """An empty answer cache that shares the model and data files of ``real``."""
    root.mkdir(parents=True)
    for name in SHARED:
        if (real / name).exists():
            (root / name).symlink_to(real / name)
    return root


def timed_card(model: str, kind: str, cache: Path) -> float:
    from rmbook.chapters.value_cards.analysis import value_card

    os.environ["RMLIB_CACHE_DIR"] = str(cache)
    t0 = time.perf_counter()
    value_card(model, kind=kind, n_resamples=999)
    return time.perf_counter() - t0


def answer_flops(model: str, kind: str, n_params: int) -> float:
    """2 x non-embedding parameters x (each answer's tokens + 1 closing position, and each prompt's positions once)."""
    from rmbook.chapters.value_cards.build import card_answers
    from rmlib import engine

    total = 0.0
    for prompts, answers in card_answers(kind):
        scores = engine.answer_rewards(model, prompts, answers, progress=False)
        total += float((scores["n_tokens"] + 1).sum() + 40 * len(prompts))
    return 2.0 * n_params * total


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from sweep_speed import matmul_flops  # the same timed matmul the sweep benchmark uses

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    args = ap.parse_args(argv)
    from rmbook.chapters.value_cards.build import card_answers, card_estimate
    from rmlib import engine
    from rmlib.config import cache_dir
    from rmlib.models import cached_model

    real = cache_dir()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["RMLIB_CACHE_DIR"] = str(fresh_cache(tmp / "warmup", real))
        engine.answer_rewards(args.model, ["What, in one word, is the best thing ever?"], ["love"], progress=False)
        quick = timed_card(args.model, "quick", fresh_cache(tmp / "quick", real))
        standard_cache = fresh_cache(tmp / "standard", real)
        standard = timed_card(args.model, "standard", standard_cache)
        again = timed_card(args.model, "standard", standard_cache)
        lm = cached_model(args.model)
        emb = lm.model.get_input_embeddings().weight.numel()
        n_params = sum(p.numel() for p in lm.model.parameters()) - emb
        flops = answer_flops(args.model, "standard", n_params)
    cfg = lm.model.config
    peak = matmul_flops(512, cfg.hidden_size, cfg.intermediate_size, lm.dtype)
    n_quick, n_standard = (sum(len(p) * len(a) for p, a in card_answers(k)) for k in ("quick", "standard"))
    out = {"model": args.model, "dtype": str(lm.dtype), "load_at_start": LOAD_AT_START, "os_cpus": os.cpu_count(),
           "quick_s": quick, "standard_s": standard, "standard_cached_s": again, "quick_answers": n_quick,
           "standard_answers": n_standard, "standard_answers_per_s": n_standard / standard,
           "time_ratio_standard_vs_quick": standard / quick, "answer_ratio_standard_vs_quick": n_standard / n_quick,
           "cached_vs_cold": again / standard, "achieved_gflops_lower_bound": flops / standard / 1e9,
           "matmul_gflops": peak / 1e9, "share_of_matmul_lower_bound": flops / standard / peak,
           "estimate_8b_rm_h200_s": card_estimate(RM_8B, "standard", "h200"), "estimate_model": RM_8B}
    OUT.mkdir(exist_ok=True)
    (OUT / "card_cost.json").write_text(json.dumps(out, indent=2))
    print(f"{args.model} ({out['dtype']}), load {LOAD_AT_START[0]:.2f} at start:")
    print(f"  quick card (baseline): {quick:.1f} s for {n_quick:,} answers")
    print(f"  standard card: {standard:.1f} s for {n_standard:,} answers ({out['standard_answers_per_s']:.0f}/s): "
          f"{out['time_ratio_standard_vs_quick']:.1f}x the quick card's time for "
          f"{out['answer_ratio_standard_vs_quick']:.1f}x its answers")
    print(f"  standard card again, from the cache: {again:.1f} s ({out['cached_vs_cold']:.2f} of cold)")
    print(f"  at least {out['achieved_gflops_lower_bound']:.0f} GFLOP/s = at least "
          f"{100 * out['share_of_matmul_lower_bound']:.0f}% of a same-shape bf16 matmul ({peak / 1e9:.0f} GFLOP/s)")
    print(f"  cost model, {RM_8B} on one H200: {out['estimate_8b_rm_h200_s']:.1f} s of GPU compute (an estimate at "
          "50% MFU, loading not counted)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
