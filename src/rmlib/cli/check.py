"""``rmlib check MODEL``: the pre-flight checks of :mod:`rmlib.engine.preflight`, to run before a long (GPU) sweep.
Prints one table (check | result | detail); the exit status is 1 when a check fails."""
from __future__ import annotations

import json

from rmlib.cli.commands import _positive_int

__all__ = ["add_subparser"]


def _cmd_check(args) -> int:
    from dataclasses import asdict

    from rmlib.engine.preflight import format_table, has_failure, preflight
    from rmlib.models import LoadOptions
    load = LoadOptions(head=args.head, dtype=args.dtype, device=args.device, revision=args.revision,
                       trust_remote_code=args.trust_remote_code, allow_untrained_head=args.allow_untrained_head,
                       allow_pickle=args.allow_pickle)
    prompt = {"prompt": args.prompt} if args.prompt else {}
    results = preflight(args.model, **prompt, load=load, n_tokens=args.tokens, timing_tokens=args.time_tokens)
    print(format_table(results))
    failed = has_failure(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "failed": failed, "checks": [asdict(r) for r in results]}, f, indent=2,
                      default=str)
    return 1 if failed else 0


def add_subparser(sub) -> None:
    p = sub.add_parser("check", help="pre-flight checks before a long sweep: loading, template, kernels, speed",
                       description="Loads MODEL and checks what a long sweep relies on: the score reader, one BOS, no "
                                   "stray pad/eos in the scored conversation, no date stamped by the chat template, "
                                   "shared-prefix vs full scores and two batch sizes within the dtype's tolerance "
                                   "in sd of the scores (64 candidates spread over the vocabulary; a bf16 or fp16 "
                                   "model again in float32, where a 0.1 sd error fails), and the measured tokens/s "
                                   "with the ETA of a full-vocabulary sweep. Nothing is cached. Exit status 1 when "
                                   "a check fails (see rmlib.engine.preflight for what each one means).")
    p.add_argument("model", help="registry id, hub id 'owner/name', or local:<name>[@step<N>]")
    p.add_argument("--prompt", default=None,
                   help="the prompt to template (default: 'What, in one word, is the greatest thing ever?')")
    p.add_argument("--head", choices=["rm", "lm"], default=None,
                   help="rm: scalar reward; lm: next-token log-probs (default: the model's kind)")
    p.add_argument("--dtype", default=None, help="auto (default), float32, bfloat16 or float16")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument("--revision", default=None, help="hub models: the commit to load")
    p.add_argument("--trust-remote-code", action="store_true", help="allow the model's own code to run")
    p.add_argument("--allow-pickle", action="store_true", help="read pickle weight files (.bin)")
    p.add_argument("--allow-untrained-head", action="store_true",
                   help="an LM with a random scalar head (speed and arithmetic checks only)")
    p.add_argument("--tokens", type=_positive_int, default=64,
                   help="candidates compared between methods and batch sizes (default 64)")
    p.add_argument("--time-tokens", type=_positive_int, default=None,
                   help="candidates in the timed sweep (default: one automatic batch, at least 64)")
    p.add_argument("--json", default=None, help="also write the results to this JSON file")
    p.set_defaults(func=_cmd_check)
