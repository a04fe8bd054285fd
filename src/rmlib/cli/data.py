"""`rmlib data fetch` and `rmlib data list`; the main CLI (:mod:`rmlib.cli.main`) mounts these with add_subparser()."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rmlib import config
from rmlib.data.fetch import DataError, fetch, verify
from rmlib.data.manifest import load_manifest


def _cmd_fetch(args: argparse.Namespace) -> int:
    dest = Path(args.dest) if args.dest else config.data_dir()
    mirror = Path(args.mirror) if args.mirror else (None if args.no_mirror else config.mirror_dir())
    print(f"data dir: {dest}\nsource:   {mirror if mirror else 'original URLs in the data manifest (rmlib/data/sources.yml)'}", file=sys.stderr)
    try:
        paths = fetch(dest, mirror, progress=lambda msg: print("  " + msg, file=sys.stderr))
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{len(paths)} files verified in {dest}", file=sys.stderr)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    dest = Path(args.dest) if args.dest else config.data_dir()
    status = verify(dest)
    for key, ds in load_manifest().items():
        print(f"{key}: {ds.title}  [{ds.license}]")
        for f in ds.files:
            print(f"    {status[f.path]:8s} {f.path}")
    return 0


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Register `data fetch` and `data list` on an argparse subparsers object."""
    data = subparsers.add_parser("data", help="fetch and verify the research data (see data/README.md)")
    sub = data.add_subparsers(dest="data_command", required=True)
    f = sub.add_parser("fetch", help="fill the data dir from a mirror or the original URLs, checking sha256")
    f.add_argument("--dest", help="data directory (default: $RMLIB_DATA_DIR or data/external)")
    f.add_argument("--mirror", help="copy from this folder instead of downloading (default: $RMLIB_DATA_MIRROR "
                                    "or ../shared/data when it exists)")
    f.add_argument("--no-mirror", action="store_true", help="download even if a mirror is found")
    f.set_defaults(func=_cmd_fetch)
    ls = sub.add_parser("list", help="list every dataset and whether its files are present and verified")
    ls.add_argument("--dest", help="data directory (default: $RMLIB_DATA_DIR or data/external)")
    ls.set_defaults(func=_cmd_list)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rmlib")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main(["data", *sys.argv[1:]]))
