"""The time table of tests/README.md from a pytest JUnit XML report: each tier's total (setup, call and teardown of
its tests, as pytest records them) and the slowest tests.

    .venv/bin/python -m pytest --junitxml=/tmp/tests.xml ...
    .venv/bin/python tools/test_times.py /tmp/tests.xml [--slowest 25]

Uses only the standard library, so it also reads a report from another checkout.
"""
from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import defaultdict


def cases(path: str) -> list[tuple[str, str, float, str]]:
    """(tier, test id, seconds, outcome) of every test case in the report."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "")
        parts = module.split(".")
        tier = parts[1] if len(parts) > 1 and parts[0] == "tests" else "other"
        outcome = "failed" if case.find("failure") is not None or case.find("error") is not None else (
            "skipped" if case.find("skipped") is not None else "passed")
        out.append((tier, f"{'/'.join(parts)}.py::{case.get('name')}", float(case.get("time", 0)), outcome))
    return out


def table(path: str, slowest: int = 25) -> str:
    rows = cases(path)
    tiers: dict[str, list] = defaultdict(list)
    for tier, _, seconds, outcome in rows:
        tiers[tier].append((seconds, outcome))
    lines = ["| tier | tests | passed | skipped | failed | seconds |", "|---|---:|---:|---:|---:|---:|"]
    for tier in sorted(tiers, key=lambda t: -sum(s for s, _ in tiers[t])):
        got = tiers[tier]
        count = {o: sum(1 for _, x in got if x == o) for o in ("passed", "skipped", "failed")}
        lines.append(f"| `{tier}/` | {len(got)} | {count['passed']} | {count['skipped']} | {count['failed']} | "
                     f"{sum(s for s, _ in got):,.0f} |")
    lines.append(f"| all | {len(rows)} | | | | {sum(r[2] for r in rows):,.0f} |")
    lines += ["", f"| the {slowest} slowest tests | seconds |", "|---|---:|"]
    for _, test, seconds, _ in sorted(rows, key=lambda r: -r[2])[:slowest]:
        lines.append(f"| `{test}` | {seconds:,.1f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--slowest", type=int, default=25)
    args = ap.parse_args()
    print(table(args.report, args.slowest))


if __name__ == "__main__":
    main()
