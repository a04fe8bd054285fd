"""#41 item 1: ``pip install -e .`` without the book's extra gives a working library. A fresh interpreter is run with
the modules that such an install lacks made unimportable (the ``book`` and ``ray`` extras' distributions, less any
that rmlib's own dependencies bring anyway, e.g. jinja2 with torch): every rmlib module imports, ``rmlib sweep``
scores a tiny model, and the book's subcommands say what to install instead of failing with a traceback."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from env_to_requirements import canonical as _canonical, declared  # noqa: E402  (the Makefile's reader)


def _closure(names: set[str]) -> set[str]:
    """``names`` and every distribution they require (unconditional requirements only), as installed here."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_canonical(re.split(r"[<>=!~ \[;(]", r)[0]) for r in requires if "extra ==" not in r]
    return seen


def absent_from_a_thin_install() -> set[str]:
    """Top-level modules of the distributions that only the extras bring."""
    parts = declared(ROOT / "pyproject.toml")
    core = _closure(parts.pop("rmlib"))
    extras = set().union(*parts.values())
    only_extras = _closure(extras) - core
    return {module for module, dists in metadata.packages_distributions().items()
            if {_canonical(d) for d in dists} <= only_extras and not module.startswith("_")}


THIN = '''
import importlib, importlib.abc, importlib.util, json, pkgutil, sys
BLOCKED = set(json.loads(sys.argv[1]))

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
_find_spec = importlib.util.find_spec  # libraries probe for optional packages this way: absent means None


def find_spec(name, package=None):
    return None if name.split(".")[0] in BLOCKED else _find_spec(name, package)


importlib.util.find_spec = find_spec
import rmlib
for info in pkgutil.walk_packages(rmlib.__path__, "rmlib."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
from rmlib.cli import main
rc = main(["sweep", "--model", "tiny-llama", "--head", "rm", "--allow-untrained-head", "--dtype", "float32",
           "--prompt", "What, in one word, is the greatest thing ever?", "--tokens", "0:40", "--top", "3"])
print("SWEEP", rc, flush=True)
print("BOOK", main(["book", "run", "big_two"]), flush=True)
print("CARD", main(["card", "tiny-llama", "--quick"]), flush=True)
print("LOADED", json.dumps(sorted({m.split(".")[0] for m in sys.modules} & BLOCKED)))
'''


def test_the_library_works_without_the_books_extra(tmp_path):
    blocked = absent_from_a_thin_install()
    assert {"papermill", "jupyter_book", "altair", "ipywidgets", "ray"} <= blocked  # what the check is about
    assert "torch" not in blocked and "transformers" not in blocked
    env = {**os.environ, "RMLIB_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", THIN, json.dumps(sorted(blocked))], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if line.split(" ")[0] in
                 {"SWEEP", "BOOK", "CARD", "LOADED"})
    assert lines["SWEEP"] == "0", proc.stderr[-3000:]
    assert lines["BOOK"] == "2" and lines["CARD"] == "2"
    assert "pip install -e '.[book]'" in proc.stderr and "Traceback" not in proc.stderr
    assert json.loads(lines["LOADED"]) == []
    (saved,) = [p for p in (tmp_path / "cache" / "sweeps").iterdir() if p.is_dir()]
    assert any(saved.rglob("*.parquet"))
