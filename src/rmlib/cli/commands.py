"""The ``rmlib`` subcommands that load models and read the cache: models, sweep, audit, verify. What they print is
worded in :mod:`rmlib.cli.show`."""
from __future__ import annotations

import argparse
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Callable

from rmlib import config
from rmlib.cli.options import add_load_options, integer_at_least, load_options
from rmlib.cli.show import audit_summary, local_rm_lines, on_terminal, quiet_libraries, sweep_report
from rmlib.engine.tokens import parse_tokens
from rmlib.errors import SweepError
from rmlib.trained import local_rms
from rmlib.registry import registry
from rmlib.storage import atomic

__all__ = ["add_model_commands", "RESULTS_FOLDERS_GROUP", "default_results_folders"]

# entry points: name -> function() returning the folders of stored records (rmlib.storage.records) that `rmlib verify`
# checks when given none: {folder: remake(path) -> how a file there is made again, or None for a file not the
# plug-in's} (a plain list of folders: the records' own words). The book declares one (its results and its reruns',
# rmbook.results.results_folders): where results live and how they are made again are the book's concepts, so rmlib
# knows no folder of its own and imports nothing of the book.
RESULTS_FOLDERS_GROUP = "rmlib.results_folders"


def _token_spec(text: str):
    """--tokens: :func:`rmlib.engine.tokens.parse_tokens`, its error a usage error."""
    try:
        return parse_tokens(text)
    except SweepError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _results_folder(text: str) -> Path:
    """--results: a folder that exists (a mistyped one checked nothing and passed, #62), or a usage error."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {'not a folder' if path.exists() else 'no such folder'}; give a "
                                          "folder of stored records (e.g. the book's book/_executed/results)")
    return path


def default_results_folders() -> dict[Path, Callable[[Path], str | None] | None]:
    """{folder: how a file there is made again} from every installed :data:`RESULTS_FOLDERS_GROUP` entry point; an
    entry point whose package is not installed (a wheel of rmlib without the book) names none."""
    folders = {}
    for entry in sorted(metadata.entry_points(group=RESULTS_FOLDERS_GROUP), key=lambda e: e.name):
        try:
            find = entry.load()
        except ImportError:
            continue
        found = find()
        folders |= {Path(f): found[f] if isinstance(found, dict) else None for f in found}
    return folders


def _positive(what: str):
    """An argparse type: a positive integer, or a usage error that says ``what`` to give."""
    return integer_at_least(1, what)


_positive_int = _positive("a positive integer (leave the option out for automatic)")
_rows = _positive("a positive number of rows (default 10)")  # --top: "top -3" printed nearly every row


def _layout_note(spec) -> str:
    """How sure rmlib is of a native head's layout (registry ``head_layout``): read from the published code, or
    INFERRED, which a hub load checks against the published tensors before downloading the weights."""
    return {"read": "; native head, layout read from its code",
            "inferred": "; native head, layout INFERRED (checked against the hub's tensors before download)"}.get(
        spec.head_layout or "", "")


def _cmd_models(args) -> int:
    rows = [(s.id, s.kind, s.source, s.family, s.base,
             (" + ".join((s.score, *s.score_readers)) if s.kind == "rm" else "")
             + (" (remote code)" if s.trust_remote_code else "") + _layout_note(s))
            for s in registry().values()]
    width = max(len(r[0]) for r in rows)
    print(f"{'id':<{width}}  kind  source    family  base    score reader (default first)")
    for r in rows:
        print(f"{r[0]:<{width}}  {r[1]:<4}  {r[2]:<8}  {r[3]:<6}  {r[4]:<6}  {r[5]}")
    print("", *local_rm_lines(local_rms()), sep="\n")
    print("\nAlso: any hub id 'owner/name', and 'local:<name>[@step<N>]' for RMs trained by rmlib.")
    return 0


def _load(args):
    """Load ``--model``; on a terminal saying so on stderr (transformers' "Loading weights" bar follows), off one
    with every library's bars turned off."""
    import sys
    import time

    from rmlib.models import load_model
    options, shown = load_options(args), on_terminal()
    if shown:
        print(f"loading {args.model} ...", file=sys.stderr, flush=True)
    else:
        quiet_libraries()
    t0 = time.perf_counter()
    lm = load_model(args.model, options)
    if shown:
        print(f"loaded {args.model} in {time.perf_counter() - t0:.1f} s ({lm.device}, "
              f"{str(lm.dtype).removeprefix('torch.')})", file=sys.stderr, flush=True)
    return lm


def _check_out(path: str | None) -> Path | None:
    """Fail before an hour of sweeping, not after it, when --out cannot be written."""
    if path is None:
        return None
    out = Path(path)
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"--out {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise PermissionError(f"--out {path}: the folder {folder} is not writable")
    if out.is_dir():
        raise IsADirectoryError(f"--out {path} is a folder; give a file name such as {out / 'sweep.parquet'}")
    return out


def _request(args) -> str | None:
    """The sweep index's key of this request (:mod:`rmlib.engine.sweep_index`), or None when the request is not the
    one ``token_rewards`` makes (another --method, --compile) or its model's weights cannot be told without
    loading them (tiny models, hub models without a pinned revision): then the model is loaded."""
    if args.method != "auto" or args.compile:
        return None
    from rmlib.engine import sweep_index
    return sweep_index.request_key(args.model, args.prompt, args.tokens, load_options(args), mode=args.mode)


def _cmd_sweep(args) -> int:
    """Exhaustive one-token sweep. Results are cached as Parquet shards under $RMLIB_CACHE_DIR/sweeps, checked
    by sha256 when read, and resume after a crash."""
    import sys

    out = _check_out(args.out)
    if on_terminal():
        print("looking for this sweep in the cache ...", file=sys.stderr, flush=True)
    from rmlib.engine import sweep, sweep_index
    request = _request(args)
    hit = sweep_index.lookup(request) if request is not None and not args.no_cache else None
    if hit is not None:  # verified byte for byte, served without loading the model
        (res, head), how = hit, "served from the cache without loading the model"
    else:
        lm = _load(args)
        res = sweep(lm, args.prompt, tokens=args.tokens, mode=args.mode, method=args.method,
                    batch_size=args.batch_size, cache=not args.no_cache, compile=args.compile, progress=on_terminal())
        head, how = lm.head, "served from the cache" if res.cached else "computed now"
        if request is not None:
            sweep_index.record(request, res, head)  # the next identical request needs no loading
    df = res.frame
    if out is not None:  # written (atomically) before anything is printed: a closed pipe cannot lose it
        with atomic.writing_file(out) as tmp:
            df.to_parquet(tmp, index=False)
    print(sweep_report(df, res.meta, head=head, model=args.model, prompt=args.prompt, how=how, top=args.top,
                       saved=config.cache_dir() / "sweeps" / res.meta["key"], out=out))
    return 0


def _cmd_audit(args) -> int:
    from rmlib.engine import roundtrip_audit
    args.head = args.head or "lm"
    report = roundtrip_audit(_load(args), tokens=args.tokens)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else audit_summary(report))
    return 0


def _cmd_verify(args) -> int:
    """Checks everything under $RMLIB_CACHE_DIR against the sha256 recorded when it was written, and reports
    what is intact, corrupt and repaired. Corrupt results are moved aside (recomputed on next use); de-quantised
    models are rebuilt from their GGUF. Exit status 1 when anything corrupt is left unrepaired."""
    from rmlib.engine import print_report, verify_cache
    from rmlib.engine.verify import verify_results
    findings = verify_cache(full=args.full, repair=not args.dry_run)
    folders = default_results_folders()  # e.g. the book's, with its words for how a file is made again
    if args.results is not None:  # one folder: a plug-in's words still apply when it is one of theirs
        folders = {args.results: {f.resolve(): r for f, r in folders.items()}.get(args.results.resolve())}
    for folder, remake in folders.items():
        findings += verify_results(folder, remake)
    status = print_report(findings, full=args.full)
    if args.dry_run:
        print("dry run: nothing was changed (no result moved aside, no model rebuilt, no file deleted); run "
              "`rmlib verify` without --dry-run to repair")
    return status


def _model_args(p, head_default=None):
    p.add_argument("--model", required=True, help="registry id, hub id 'owner/name', or local:<name>[@step<N>]")
    add_load_options(p, head_default=head_default)
    p.add_argument("--tokens", default=None, type=_token_spec,
                   help="vocabulary slice 'LO:HI', 'LO:' or ':HI', or ids '1,2,3' (default: all)")


def add_model_commands(sub) -> None:
    """Register models, sweep, audit and verify on an argparse subparsers object."""
    p = sub.add_parser("models", help="list the model registry and the RMs trained in this cache")
    p.set_defaults(func=_cmd_models)
    p = sub.add_parser("sweep", help="score every vocabulary token as the answer to a prompt",
                       description=_cmd_sweep.__doc__)
    _model_args(p)
    p.add_argument("--prompt", required=True, help='e.g. "What, in one word, is the greatest thing ever?"')
    p.add_argument("--mode", choices=["id_exact", "paper"], default="id_exact",
                   help="id_exact (default) or paper: the original decode/re-encode pipeline")
    p.add_argument("--method", choices=["auto", "shared_prefix", "full"], default="auto")
    p.add_argument("--batch-size", type=_positive_int, default=None)
    p.add_argument("--no-cache", action="store_true",
                   help="recompute every token, then replace the cached result (in one rename)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the scoring forward (RM, id-exact, shared prefix): ~70 s to compile on 2 CPU "
                        "cores, then ~10-15%% faster; worth it for long sweeps or on a GPU")
    p.add_argument("--top", type=_rows, default=10, help="rows to show at each end (a positive integer; default 10)")
    p.add_argument("--out", default=None, help="also write the rows to this Parquet file (atomically)")
    p.set_defaults(func=_cmd_sweep)
    p = sub.add_parser("audit", help="share of token ids that do not survive decode->encode")
    _model_args(p)
    p.add_argument("--json", action="store_true", help="print the whole report as JSON (default: a summary)")
    p.set_defaults(func=_cmd_audit)
    p = sub.add_parser("verify", help="check every cached sweep, answer set, trained checkpoint and de-quantised model",
                       description=_cmd_verify.__doc__)
    p.add_argument("--full", action="store_true",
                   help="hash every byte of the model files too and decode every shard (default: sizes and sampled "
                        "hashes for model files, every shard's sha256)")
    p.add_argument("--dry-run", action="store_true", help="report only: move, rebuild or delete nothing")
    p.add_argument("--results", default=None, metavar="DIR", type=_results_folder,
                   help="a folder of stored records to check too, such as a book's results (default: those the installed "
                        "plug-ins name: the book's, book/_executed/results, and each rerun's, "
                        "book/_executed/reruns/*/results)")
    p.set_defaults(func=_cmd_verify)
