"""``rmlib gcg``: multi-token optima and pessima of a reward model (or an LM's implicit reward) by GCG search
(:func:`rmlib.engine.gcg.gcg`), with the same model flags as ``rmlib sweep``."""
from __future__ import annotations


from rmlib.cli.commands import _check_out, _load, _model_args, _positive_int
from rmlib.storage import atomic

__all__ = ["add_gcg_command"]


def _cmd_gcg(args) -> int:
    """Greedy Coordinate Gradient search (Zou et al. 2023) of n-token responses to a prompt. An RM's reward is
    its score; an LM's is the summed log-prob of the response. Each restart is cached as a Parquet shard under
    $RMLIB_CACHE_DIR/gcg, checked by sha256 when read; a killed run resumes at the next restart."""
    from rmlib.engine.gcg import GCGConfig, gcg
    out = _check_out(args.out)
    config = GCGConfig(topk=args.topk, search_width=args.search_width, n_replace=args.n_replace,
                       buffer_size=args.buffer_size)
    res = gcg(_load(args), args.prompt, length=args.length, direction=args.direction, steps=args.steps,
              restarts=args.restarts, seed=args.seed, init=args.init, config=config, tokens=args.tokens,
              batch_size=args.batch_size, cache=not args.no_cache)
    df = res.frame
    if out is not None:  # written (atomically) before anything is printed: a closed pipe cannot lose it
        with atomic.writing_file(out) as tmp:
            df.to_parquet(tmp, index=False)
    best = res.optima()
    print(f"{len(df)} rows ({args.restarts} restarts x {args.steps + 1} steps) {'(from cache)' if res.cached else ''}"
          f"; key {res.meta['key']}")
    print(f"best response of each restart ({args.direction}imum of the {res.meta['reward_kind']}):\n"
          + best[["restart", "reward", "text", "ids"]].to_string(index=False))
    if out is not None:
        print(f"wrote {out}")
    return 0


def add_gcg_command(sub) -> None:
    """Register ``gcg`` on an argparse subparsers object."""
    p = sub.add_parser("gcg", help="search multi-token responses that maximise or minimise the reward (GCG)",
                       description=_cmd_gcg.__doc__)
    _model_args(p)
    p.add_argument("--prompt", required=True, help='e.g. "What is the greatest thing ever?"')
    p.add_argument("--length", type=_positive_int, default=4, help="tokens in the response (default 4)")
    p.add_argument("--direction", choices=["max", "min"], default="max")
    p.add_argument("--steps", type=int, default=50, help="GCG steps per restart (default 50)")
    p.add_argument("--restarts", type=_positive_int, default=4, help="independent searches (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--init", default=None, help="start string of exactly --length tokens (default: random tokens)")
    p.add_argument("--topk", type=_positive_int, default=64, help="replacement tokens kept per position")
    p.add_argument("--search-width", type=_positive_int, default=128, help="candidates per step")
    p.add_argument("--n-replace", type=_positive_int, default=1, help="positions replaced per candidate")
    p.add_argument("--buffer-size", type=_positive_int, default=4, help="best sequences kept to expand from")
    p.add_argument("--batch-size", type=_positive_int, default=None)
    p.add_argument("--no-cache", action="store_true", help="search afresh, then replace the cached result")
    p.add_argument("--out", default=None,
                   help="also write one row per restart and step (ids, text, reward) to this Parquet file (atomically)")
    p.set_defaults(func=_cmd_gcg)
