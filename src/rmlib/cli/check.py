"""``rmlib check MODEL``: the pre-flight checks of :mod:`rmlib.engine.preflight`, to run before a long (GPU) sweep.
Prints one table (check | result | detail); the exit status is 1 when a check fails."""
from __future__ import annotations

import json

from rmlib.cli.commands import _positive_int
from rmlib.cli.options import add_load_options, load_options

__all__ = ["add_subparser", "run_checks"]


def _cmd_check(args) -> int:
    """Loads MODEL and checks what a long sweep relies on: the score reader, one BOS, no stray pad/eos in the
    scored conversation, no date stamped by the chat template, shared-prefix vs full scores and two batch sizes
    within the dtype's tolerance in sd of the scores (64 candidates spread over the vocabulary; a bf16 or fp16
    model again in float32, where a 0.1 sd error fails), and the measured tokens/s with the ETA of a
    full-vocabulary sweep. Nothing is cached. Exit status 1 when a check fails (see rmlib.engine.preflight for
    what each one means)."""
    from dataclasses import asdict

    from rmlib.engine.preflight import format_table, has_failure, preflight
    load = load_options(args)
    prompt = {"prompt": args.prompt} if args.prompt else {}
    results = preflight(args.model, **prompt, load=load, n_tokens=args.tokens, timing_tokens=args.time_tokens)
    print(format_table(results))
    failed = has_failure(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "failed": failed, "checks": [asdict(r) for r in results]}, f, indent=2,
                      default=str)
    return 1 if failed else 0


def run_checks(model, load=None, *, n_tokens: int = 64, timing_tokens: int | None = None) -> list[dict]:
    """``rmlib check``'s checks of ``model`` (an id, or a loaded model: not loaded again) as plain rows (check,
    status, detail), for a command that runs them first and reports them (``rmlib card``, #66)."""
    from rmlib.engine.preflight import preflight
    results = preflight(model, load=load, n_tokens=n_tokens, timing_tokens=timing_tokens)
    return [{"check": r.check, "status": r.status, "detail": r.detail} for r in results]


def add_subparser(sub) -> None:
    p = sub.add_parser("check", help="pre-flight checks before a long sweep: loading, template, kernels, speed",
                       description=_cmd_check.__doc__)
    p.add_argument("model", help="registry id, hub id 'owner/name', or local:<name>[@step<N>]")
    p.add_argument("--prompt", default=None,
                   help="the prompt to template (default: 'What, in one word, is the greatest thing ever?')")
    add_load_options(p)
    p.add_argument("--tokens", type=_positive_int, default=64,
                   help="candidates compared between methods and batch sizes (default 64)")
    p.add_argument("--time-tokens", type=_positive_int, default=None,
                   help="candidates in the timed sweep (default: one automatic batch, at least 64)")
    p.add_argument("--json", default=None, help="also write the results to this JSON file")
    p.set_defaults(func=_cmd_check)
