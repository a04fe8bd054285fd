"""TRANSITIONAL: the old string-path language, until every claims evaluator reads attributes."""
import re
from typing import Any
from rmlib.analysis.claims.evidence import Missing

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
