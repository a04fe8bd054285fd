"""GCG speed (rmlib.engine.gcg) on SmolLM2 at n = 4, and its candidate-scoring rate as a share of the sweep engine's
rate, both measured in this one process with the same model and prompt.

* GCG steps/s and candidates scored/s of a search (one restart, `--steps` steps, default config), over the whole
  search (gradients included) and over the time spent scoring candidates only;
* the sweep engine's one-token rate (tokens/s): `sweep()` end to end on a `--sweep-tokens` slice of the vocabulary,
  and the same kernel call GCG makes (Objective.rewards) on those one-token answers;
* the shares: candidate-scoring rate over those rates, per answer and per scored position (a 4-token candidate plus
  the template's end-of-turn positions is more positions per row than a 1-token answer); "same kernel" predicts a
  per-position share near 1.

The scalar head is untrained (speed only; not a finding). Results go to benchmarks/out/gcg_speed.json.
Usage:  .venv/bin/python benchmarks/gcg_speed.py [--model smollm2-135m-instruct] [--steps 10] [--head rm|lm]
                                                [--threads 2]
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
PROMPT = "What, in one word, is the greatest thing ever?"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--head", choices=["rm", "lm"], default="rm")
    ap.add_argument("--length", type=int, default=4)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--sweep-tokens", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                    help="torch threads (on a shared machine whose load exceeds its cores, 1 is far faster)")
    args = ap.parse_args(argv)

    import torch

    from rmlib.engine import sweep
    from rmlib.engine.gcg import GCGConfig, Objective, gcg
    from rmlib.models import answer_slot, load_model

    torch.set_num_threads(args.threads)
    load_start = os.getloadavg()
    lm = load_model(args.model, head=args.head, allow_untrained_head=args.head == "rm")
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    suffix = len(slot.suffix_ids) if args.head == "rm" else 0
    with tempfile.TemporaryDirectory() as tmp:
        sweep(lm, PROMPT, tokens=range(64), cache=False, cache_root=tmp, progress=False)  # warm-up
        t0 = time.perf_counter()
        sweep(lm, PROMPT, tokens=range(args.sweep_tokens), cache=False, cache_root=tmp, progress=False)
        sweep_rate = args.sweep_tokens / (time.perf_counter() - t0)
        one = Objective(lm, slot, "max")
        ids = [(i,) for i in range(args.sweep_tokens) if i not in set(lm.tokenizer.all_special_ids)]
        t0 = time.perf_counter()
        one.rewards(ids)
        kernel_rate = len(ids) / (time.perf_counter() - t0)
        scoring = {"seconds": 0.0, "n": 0}
        honest = Objective.rewards

        def timed(self, responses):
            t = time.perf_counter()
            r = honest(self, responses)
            scoring["seconds"] += time.perf_counter() - t
            scoring["n"] += len(responses)
            return r

        Objective.rewards = timed
        try:
            res = gcg(lm, PROMPT, length=args.length, steps=args.steps, restarts=1, config=GCGConfig(), cache=False,
                      cache_root=tmp, progress=False)
        finally:
            Objective.rewards = honest
    out = {"model": args.model, "head": args.head, "dtype": str(lm.dtype), "threads": args.threads,
           "length": args.length,
           "steps": args.steps, "config": vars(GCGConfig()), "gcg_seconds": res.seconds,
           "gcg_steps_per_s": args.steps / res.seconds, "candidates_scored": res.n_scored,
           "candidates_per_s": res.n_scored / res.seconds, "sweep_tokens_per_s": sweep_rate,
           "positions_per_candidate": args.length + suffix, "positions_per_sweep_token": 1 + suffix,
           "load_at_start": load_start, "load_at_end": os.getloadavg()}
    pos = out["positions_per_candidate"] / out["positions_per_sweep_token"]
    out["scoring_only_candidates_per_s"] = scoring["n"] / scoring["seconds"]
    out["kernel_one_token_answers_per_s"] = kernel_rate
    out["candidate_rate_share_of_sweep"] = out["scoring_only_candidates_per_s"] / sweep_rate
    out["position_rate_share_of_sweep"] = out["candidate_rate_share_of_sweep"] * pos
    out["position_rate_share_of_kernel_one_token"] = out["scoring_only_candidates_per_s"] / kernel_rate * pos
    OUT.mkdir(exist_ok=True)
    (OUT / "gcg_speed.json").write_text(json.dumps(out, indent=2, default=str))
    print(json.dumps(out, indent=2, default=str))
    return out


if __name__ == "__main__":
    main()
