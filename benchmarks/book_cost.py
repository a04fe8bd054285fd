"""The book's cost table (#61): per chapter, where its last run's time went and how close each compute phase came to
the machine's matmul peak, from the stamps a build wrote (``book/_executed/*.stamp``).

Each stamp holds its kernel's phases (:mod:`rmlib.costs`: seconds exclusive of nested phases, FLOPs counted at
every forward of a loaded model, calls), the machine that ran it (kind of CPU, cores, the dtype the book computes
in, the float32 and bf16 matmul peaks measured in the same build) and the load average at its start and end.
"rest" is the chapter's time outside every phase: its analysis, charts, prose and papermill's own work.

    .venv/bin/python benchmarks/book_cost.py                      # the book's last build
    .venv/bin/python benchmarks/book_cost.py --executed DIR --json
    .venv/bin/python benchmarks/book_cost.py --project 112 --share 0.78 --python-factor 2.0   # another machine

``--project G`` adds what each chapter would take on a machine whose matmul peak in the dtype it computes in is G
GFLOP/s (an AVX2-only CPU computes in float32: 112 GFLOP/s on the 2-core AMD EPYC of #61): each compute phase's
FLOPs at ``--share`` of that peak, plus the phase's time here beyond its FLOPs at this machine's peak (its Python,
small kernels and memory traffic) and the load and rest, both × ``--python-factor``. A projection, not a
measurement: the FLOPs are a floor (attention's products left out), and the factors come from other runs.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from rmbook.book.speed import COMPUTE_PHASES as COMPUTE  # what the estimate scales by the model's speed
from rmlib.costs import PHASES


def chapter_costs(stamp: dict) -> dict | None:
    """One row of the table from a stamp, or None for a stamp written before costs were recorded."""
    costs = stamp.get("costs")
    if not isinstance(costs, dict) or "phases" not in costs:
        return None
    phases, machine = costs["phases"], costs.get("machine", {})
    total = float(stamp.get("seconds", 0.0))
    row = {"seconds": total, "load_avg": costs.get("load"), "cpu": machine.get("cpu"), "dtype": machine.get("dtype")}
    for p in PHASES:
        row[p] = float(phases.get(p, {}).get("seconds", 0.0))
    row["rest"] = max(total - sum(row[p] for p in PHASES), 0.0)
    flops = sum(float(phases.get(p, {}).get("flops", 0.0)) for p in COMPUTE)
    busy = sum(row[p] for p in COMPUTE)
    peak = (machine.get("matmul_gflops") or {}).get(machine.get("dtype"))
    row["gflop"] = flops / 1e9
    row["gflops_per_s"] = flops / 1e9 / busy if busy else None
    row["share_of_peak"] = row["gflops_per_s"] / peak if peak and row["gflops_per_s"] else None
    row["peak_gflops"] = peak
    row["by_phase"] = {p: {"seconds": row[p], "gflop": float(phases.get(p, {}).get("flops", 0.0)) / 1e9,
                           "share_of_peak": (float(phases[p]["flops"]) / 1e9 / row[p] / peak
                                             if peak and p in phases and row[p] and phases[p].get("flops") else None)}
                       for p in COMPUTE}
    return row


def projected_seconds(row: dict, gflops: float, share: float, python_factor: float) -> float:
    """``row``'s chapter on a machine of ``gflops`` peak: matmul work at ``share`` of it, everything else here ×
    ``python_factor`` (see the module docstring)."""
    peak_here = row["peak_gflops"] or gflops
    out = (row["load"] + row["rest"]) * python_factor
    for p in COMPUTE:
        work = row["by_phase"][p]["gflop"]
        out += work / (gflops * share) + max(row[p] - work / peak_here, 0.0) * python_factor
    return out


def table(rows: dict[str, dict]) -> str:
    """The rows as a markdown table, the costliest chapter first, with a total line."""
    head = "| chapter | total s | " + " | ".join(PHASES) + " | rest | GFLOP | GFLOP/s | of peak |"
    lines = [head, "|---|" + "---:|" * (len(PHASES) + 5)]
    fmt = lambda v, d=0: "—" if v is None else f"{v:,.{d}f}"  # noqa: E731
    for name, r in sorted(rows.items(), key=lambda kv: -kv[1]["seconds"]):
        share = "—" if r["share_of_peak"] is None else f"{100 * r['share_of_peak']:.0f}%"
        lines.append(f"| {name} | {fmt(r['seconds'])} | " + " | ".join(fmt(r[p]) for p in PHASES)
                     + f" | {fmt(r['rest'])} | {fmt(r['gflop'])} | {fmt(r['gflops_per_s'])} | {share} |")
    total = {k: sum(r[k] for r in rows.values()) for k in ("seconds", *PHASES, "rest", "gflop")}
    lines.append(f"| **all** | {fmt(total['seconds'])} | " + " | ".join(fmt(total[p]) for p in PHASES)
                 + f" | {fmt(total['rest'])} | {fmt(total['gflop'])} | | |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--executed", default=str(Path(__file__).resolve().parents[1] / "book" / "_executed"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--project", type=float, help="another machine's matmul peak, GFLOP/s, in the dtype it computes in")
    ap.add_argument("--share", type=float, default=0.78, help="the share of that peak its forwards reach")
    ap.add_argument("--python-factor", type=float, default=2.0, help="how much slower its Python work is")
    args = ap.parse_args()
    rows, old = {}, []
    for stamp in sorted(Path(args.executed).glob("*.stamp")):
        row = chapter_costs(json.loads(stamp.read_text()))
        if row is None:
            old.append(stamp.stem)
        else:
            rows[stamp.stem] = row
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    machines = {(r["cpu"], r["dtype"], r["peak_gflops"]) for r in rows.values()}
    for cpu, dtype, peak in sorted(machines, key=str):
        print(f"machine: {cpu} CPU, computing in {dtype}, matmul peak {peak} GFLOP/s (measured in the build)")
    print(table(rows))
    if args.project:
        print(f"\nprojected for a machine of {args.project:g} GFLOP/s at {args.share:.0%} of it, Python × "
              f"{args.python_factor:g}:\n\n| chapter | here s | projected s |\n|---|---:|---:|")
        proj = {n: projected_seconds(r, args.project, args.share, args.python_factor) for n, r in rows.items()}
        for n in sorted(proj, key=lambda n: -proj[n]):
            print(f"| {n} | {rows[n]['seconds']:,.0f} | {proj[n]:,.0f} |")
        print(f"| **all** | {sum(r['seconds'] for r in rows.values()):,.0f} | {sum(proj.values()):,.0f} |")
    if old:
        print(f"\nno costs recorded (stamped before costs were): {', '.join(old)}")


if __name__ == "__main__":
    main()
