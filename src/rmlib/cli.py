"""`rmlib` command line: sweeps, the model registry, audits and data."""
from __future__ import annotations

import argparse
import json
import sys


def _parse_tokens(text: str | None):
    if not text:
        return None
    if ":" in text:
        lo, hi = text.split(":", 1)
        return range(int(lo or 0), int(hi))
    return [int(t) for t in text.split(",") if t.strip()]


def _cmd_models(args) -> int:
    from .models import registry
    rows = [(s.id, s.kind, s.source, s.family, s.base, "yes" if s.trust_remote_code else "") for s in registry().values()]
    width = max(len(r[0]) for r in rows)
    print(f"{'id':<{width}}  kind  source    family  base    remote-code")
    for r in rows:
        print(f"{r[0]:<{width}}  {r[1]:<4}  {r[2]:<8}  {r[3]:<6}  {r[4]:<6}  {r[5]}")
    print("\nAlso: any hub id 'owner/name', and 'local:<name>[@step<N>]' for RMs trained by rmlib.")
    return 0


def _load(args):
    from .models import load_model
    return load_model(args.model, head=args.head, dtype=args.dtype, device=args.device,
                      trust_remote_code=args.trust_remote_code, allow_untrained_head=args.allow_untrained_head)


def _cmd_sweep(args) -> int:
    from .sweep import sweep
    res = sweep(_load(args), args.prompt, tokens=_parse_tokens(args.tokens), mode=args.mode, method=args.method,
                batch_size=args.batch_size, cache=not args.no_cache, compile=args.compile)
    df = res.frame
    value = "score" if "score" in df else "logprob"
    ranked = df.sort_values(value, ascending=False)
    print(f"{len(df)} tokens {'(from cache)' if res.cached else ''}; key {res.meta['key']}")
    print(f"top {args.top}:\n" + ranked.head(args.top)[["token_id", "text", value]].to_string(index=False))
    print(f"bottom {args.top}:\n" + ranked.tail(args.top)[["token_id", "text", value]].to_string(index=False))
    if args.out:
        df.to_parquet(args.out, index=False)
        print(f"wrote {args.out}")
    return 0


def _cmd_audit(args) -> int:
    from .sweep import roundtrip_audit
    args.head = args.head or "lm"
    report = roundtrip_audit(_load(args), tokens=_parse_tokens(args.tokens))
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


def _model_args(p, head_default=None):
    p.add_argument("--model", required=True, help="registry id, hub id 'owner/name', or local:<name>[@step<N>]")
    p.add_argument("--head", choices=["rm", "lm"], default=head_default,
                   help="rm: scalar reward; lm: next-token log-probs (default: the model's kind)")
    p.add_argument("--dtype", default=None, help="auto (default), float32, bfloat16 or float16")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow the model's own hub code to run (never implied)")
    p.add_argument("--allow-untrained-head", action="store_true",
                   help="load an LM with a random scalar head (speed tests only; it is not a reward model)")
    p.add_argument("--tokens", default=None, help="vocabulary slice 'LO:HI' or ids '1,2,3' (default: all)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rmlib", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("models", help="list the model registry")
    p.set_defaults(func=_cmd_models)
    p = sub.add_parser("sweep", help="score every vocabulary token as the answer to a prompt",
                       description="Exhaustive one-token sweep. Results are cached as Parquet shards under "
                                   "$RMLIB_CACHE_DIR/sweeps and resume after a crash.")
    _model_args(p)
    p.add_argument("--prompt", required=True, help='e.g. "What, in one word, is the greatest thing ever?"')
    p.add_argument("--mode", choices=["id_exact", "paper"], default="id_exact",
                   help="id_exact (default) or paper: the original decode/re-encode pipeline")
    p.add_argument("--method", choices=["auto", "shared_prefix", "full"], default="auto")
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--no-cache", action="store_true", help="recompute even when a finished sweep exists")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the scoring forward (RM, id-exact, shared prefix): ~70 s to compile on 2 CPU "
                        "cores, then ~10-15%% faster; worth it for long sweeps or on a GPU")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--out", default=None, help="also write the rows to this Parquet file")
    p.set_defaults(func=_cmd_sweep)
    p = sub.add_parser("audit", help="share of token ids that do not survive decode->encode")
    _model_args(p)
    p.set_defaults(func=_cmd_audit)
    try:
        from .data.cli import add_subparser
    except ImportError:
        add_subparser = None
    if add_subparser is not None:
        add_subparser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"rmlib: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
