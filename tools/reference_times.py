#!/usr/bin/env python3
"""Write book/reference_times.yaml: how long each chapter took with its full-run parameters, read from the stamps of
a cold `make book` (book/_executed/<chapter>.stamp), so that a fresh clone's first `make book` can show the time left
for chapters that never ran on that machine (rmbook.book.runner.reference_seconds).

Only stamps whose parameters are the chapter's full-run parameters (src/rmbook/chapters/<chapter>/params.yaml) count: a
tiny or hand-parameterised run says nothing about the book's cost. Chapters without such a stamp keep the value already
in the file (if any); pass --only-new to start from an empty table. Run it after a cold build on a quiet machine, and
commit the file. Each entry says where it was measured (``measured``): the stamp's date and folder and the CPU count;
the load average is not known afterwards, so note it in the commit message.

Each chapter's compute seconds (its stamp's costs in :data:`rmbook.book.speed.COMPUTE_PHASES`) are written beside
its total, so another machine scales the two parts by two measurements.
``--calibrate`` also records this machine's speed (:func:`rmbook.book.speed.calibrate`: about two seconds of
forwards of a small SmolLM2-shaped LM in the dtype it trains in, and one of Python and pandas work), against which
another machine's first `make book` scales these times. Give it on the machine that made the stamps, with nothing
else running; without it the recorded calibration is kept.

    python tools/reference_times.py                       # from book/_executed
    python tools/reference_times.py --executed /tmp/fresh/book/_executed
    python tools/reference_times.py --calibrate             # and measure this machine's speed (quiet machine)
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rmbook import book  # noqa: E402
from rmbook.book import runner, speed  # noqa: E402
from rmbook.report.prose.render import plural  # noqa: E402

HEADER = """\
# Seconds each chapter took with its full-run parameters (src/rmbook/chapters/<chapter>/params.yaml) in a cold `make book` (the
# caches of the chapters before it present, as the book runs them): the estimate `make book` shows for a chapter that
# has never run on this machine (its own stamps are used once it has).
# Written by tools/reference_times.py from a cold build's stamps; do not edit by hand. A chapter missing here is
# reported as "never timed". Times depend on the machine and its load (`measured` says where each came from): a rough guide.
# `compute_seconds` is the part of each chapter spent in forwards (sweeps, answers, training, frozen states, checkpoints).
# `calibration` is the same machine's speed at a small LM's forwards and at Python work (tools/reference_times.py --calibrate):
# another machine's first `make book` measures its own and scales the compute part and the rest by the two ratios
# (rmbook.book.speed).
"""


def full_run_seconds(executed: Path) -> dict[str, float]:
    """{chapter: seconds} for every stamp in ``executed`` that records a run with the chapter's full parameters."""
    return {name: round(float(data["seconds"]), 1) for name, data in _full_run_stamps(executed).items()}


def compute_seconds(executed: Path) -> dict[str, float]:
    """{chapter: seconds in compute phases} for the full-run stamps in ``executed`` that record their costs."""
    out = {}
    for name, data in _full_run_stamps(executed).items():
        phases = (data.get("costs") or {}).get("phases")
        if isinstance(phases, dict):
            out[name] = round(sum(float((phases.get(p) or {}).get("seconds", 0.0)) for p in speed.COMPUTE_PHASES), 1)
    return out


def _full_run_stamps(executed: Path) -> dict[str, dict]:
    out = {}
    for name in book.chapters():
        stamp = book.stamp_path(name, executed)
        try:
            data = json.loads(stamp.read_text())
        except (OSError, ValueError):
            continue
        ran = {k: v for k, v in (data.get("parameters") or {}).items() if k != book.RESULTS_PARAMETER}
        full = {k: v for k, v in book.parameters(name, validate=False).items() if k != book.RESULTS_PARAMETER}
        if ran == json.loads(json.dumps(full, default=str)) and data.get("seconds") is not None:
            out[name] = data
    return out


def _read(path: Path) -> dict:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--executed", type=Path, default=book.EXECUTED, help="the executed chapters' folder")
    ap.add_argument("--out", type=Path, default=runner.REFERENCE_TIMES)
    ap.add_argument("--only-new", action="store_true", help="drop chapters that have no full-run stamp here")
    ap.add_argument("--calibrate", action="store_true", help="record this machine's speed too (a small LM's forwards)")
    args = ap.parse_args(argv)
    found = full_run_seconds(args.executed)
    if not found and not args.calibrate:
        print(f"no full-parameter stamps in {args.executed}: run `make book` first", file=sys.stderr)
        return 1
    previous = {} if args.only_new else _read(args.out)
    seconds = {**(previous.get("seconds") or {}), **found}
    compute = {**{n: v for n, v in (previous.get("compute_seconds") or {}).items() if n not in found},
               **compute_seconds(args.executed)}
    when = {n: dt.datetime.fromtimestamp(book.stamp_path(n, args.executed).stat().st_mtime).date().isoformat()
            for n in found}
    measured = {**(previous.get("measured") or {}),
                **{n: f"stamp of {when[n]}, {os.cpu_count()} CPUs" for n in found}}
    calibration = previous.get("calibration")
    if args.calibrate:
        calibration = {**speed.calibrate(), "measured": f"{dt.date.today().isoformat()}, {os.cpu_count()} CPUs, "
                                                            f"load {os.getloadavg()[0]:.2f}"}
    body = yaml.safe_dump({"seconds": dict(sorted(seconds.items())),
                           **({"compute_seconds": dict(sorted(compute.items()))} if compute else {}),
                           "measured": {n: measured[n] for n in sorted(seconds) if n in measured},
                           **({"calibration": calibration} if calibration else {})},
                          sort_keys=False, width=200)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(HEADER + body, encoding="utf-8")
    os.replace(tmp, args.out)
    print(f"wrote {args.out}: {plural(len(found), 'chapter')} from {args.executed}, {len(seconds)} in all"
          + (f"; this machine's speed {calibration['tokens_per_s']:,.0f} tokens/s ({calibration['dtype']})" if args.calibrate
             else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
