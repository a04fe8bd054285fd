"""Evidence with provenance: every number a claim uses is read from a chapter's results JSON through :class:`Evidence`,
which records the chapter and the path it came from, so the page cannot drift from the chapters and a test can check
each number against its source."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from rmlib.analysis.claims.rules import Part

__all__ = ["Missing", "Ref", "resolve", "Evidence", "evaluate_part", "untestable", "fmt"]


class Missing(LookupError):
    """A number the claim needs is not in the chapter's results (or the chapter has not run)."""


@dataclass(frozen=True)
class Ref:
    """One number (or label) taken from a chapter's results: where it came from and its value."""

    chapter: str
    path: str
    value: Any


_SEGMENT = re.compile(r"^(?P<key>[^\[\]]*)(?:\[(?P<sel>[^\]]*)\])?$")


def _split_path(path: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in path:
        if ch == "." and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    parts.append(cur)
    return parts


def resolve(data: Any, path: str) -> Any:
    """Follow ``path`` into nested results: dots separate keys; ``key[a=x,b=y]`` picks the one record of the list
    ``key`` whose fields match (values compared as text); an integer key indexes a list."""
    cur = data
    for seg in _split_path(path):
        m = _SEGMENT.match(seg)
        if not m:
            raise Missing(f"bad path segment {seg!r} in {path!r}")
        key, sel = m.group("key"), m.group("sel")
        if cur is None:
            raise Missing(f"the chapter did not compute {path} in this run (e.g. one seed, or too few models)")
        if key:
            if isinstance(cur, dict):
                if key not in cur:
                    raise Missing(f"no {key!r} in results (path {path!r})")
                cur = cur[key]
            elif isinstance(cur, list) and key.lstrip("-").isdigit():
                try:
                    cur = cur[int(key)]
                except IndexError:
                    raise Missing(f"index {key} out of range (path {path!r})") from None
            else:
                raise Missing(f"cannot look up {key!r} in a {type(cur).__name__} (path {path!r})")
        if sel is not None:
            if not isinstance(cur, list):
                raise Missing(f"{key!r} is not a list of records (path {path!r})")
            conds = [c.split("=", 1) for c in sel.split(",") if c]
            hits = [r for r in cur if isinstance(r, dict) and all(str(r.get(k)) == v for k, v in conds)]
            if len(hits) != 1:
                raise Missing(f"{len(hits)} records match [{sel}] in {key!r} (path {path!r})")
            cur = hits[0]
    return cur


class Evidence:
    """The chapters' results, handing out numbers and recording where each came from."""

    def __init__(self, results: dict[str, dict | None], reasons: dict[str, str] | None = None):
        self.results = results
        self.reasons = reasons or {}
        self.refs: list[Ref] = []
        self.derived: list[Ref] = []

    def get(self, chapter: str, path: str) -> Any:
        data = self.results.get(chapter)
        if data is None:
            raise Missing(self.reasons.get(chapter, f"chapter {chapter!r} has not written results"))
        value = resolve(data, path)
        if value is None:
            raise Missing(f"the chapter {chapter} did not compute {path} in this run")
        self.refs.append(Ref(chapter, path, value))
        return value

    def values(self, chapter: str, prefix: str, *names: str) -> tuple:
        """Several numbers under one path, in order: ``values(ch, "a.b", "x", "y")`` is ``get(ch, "a.b.x")``,
        ``get(ch, "a.b.y")``."""
        return tuple(self.get(chapter, f"{prefix}.{n}") for n in names)

    def derive(self, what: str, value: Any) -> Any:
        """A number the claim computes from numbers it read (a count over panels, the floor of a test after FDR, a
        range over runs): recorded with what it is, so the page can show it and a test can tell it from a typed-in
        number. Returns ``value``."""
        self.derived.append(Ref("derived", what, value))
        return value

    def take(self) -> list[Ref]:
        refs, self.refs = self.refs, []
        return refs

    def take_derived(self) -> list[Ref]:
        derived, self.derived = self.derived, []
        return derived


def evaluate_part(name: str, e: Evidence, fn: Callable[[], tuple[str, str]], context: bool = False) -> Part:
    """Run one part's evidence function ``fn`` and attach the numbers it read; a missing number makes the part
    untestable with the reason, rather than failing the page. ``fn`` returns (outcome, text) or (outcome, text,
    extras), extras holding the part's ``floor`` (smallest attainable p) and/or ``note`` (a qualifier)."""
    try:
        outcome, text, *rest = fn()
    except Missing as err:
        e.take(), e.take_derived()
        return Part(name, "untestable", f"not available here: {err}", [], context)
    extras = rest[0] if rest else {}
    return Part(name, outcome, text, e.take(), context, floor=extras.get("floor"), note=extras.get("note", ""),
                derived=e.take_derived())


def untestable(name: str, reason: str) -> Part:
    """A part that needs what this book does not have (the RMs' weights on a GPU, a model hub), with the reason."""
    return Part(name, "untestable", reason)


def fmt(x: float, spec: str = ".2f") -> str:
    """A number as the evidence texts print it."""
    return format(x, spec)
