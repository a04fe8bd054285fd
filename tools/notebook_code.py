#!/usr/bin/env python3
"""Extract the code cells of the chapter templates into plain ``.py`` files, for tools that read Python files only.

``duplicates --repo`` (and any linter) sees src/ but not the code inside notebooks; this writes one module per
template, each code cell preceded by a ``# cell N`` comment, so repeated code across chapters shows up:

    python tools/notebook_code.py /tmp/nbcode            # notebooks/*.ipynb -> /tmp/nbcode/<name>.py
    duplicates --repo /tmp/nbcode

``--stats`` prints, per template, its code cells over ``--max-lines`` non-blank lines (the parameters cell aside)
and any function, class or lambda it defines (chapters keep both in rmlib: see ARCHITECTURE.md); it exits 1 when
there is any.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def code_cells(notebook: Path, *, parameters: bool = True) -> list[tuple[int, str]]:
    """(index in the notebook, source) of every code cell, IPython magics commented out so the text parses
    (``parameters=False`` leaves out the cell tagged ``parameters``: a list of declarations, long by nature)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    out = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        if not parameters and "parameters" in cell.get("metadata", {}).get("tags", []):
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        lines = [("# " + l if l.lstrip().startswith(("%", "!")) else l) for l in src.splitlines()]
        out.append((i, "\n".join(lines)))
    return out


def extract(notebooks: list[Path], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for nb in notebooks:
        text = "".join(f"# cell {i}\n{src}\n\n" for i, src in code_cells(nb))
        path = out / f"{nb.stem}.py"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def definitions(source: str) -> list[str]:
    """Names of the functions, classes and lambdas a cell defines (a lambda is reported as ``lambda``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.name)
        elif isinstance(node, ast.Lambda):
            found.append("lambda")
    return found


def stats(notebooks: list[Path], max_lines: int) -> int:
    """Print long cells and definitions per template; return how many templates have either."""
    flagged = 0
    for nb in notebooks:
        long, defs = [], []
        for i, src in code_cells(nb, parameters=False):
            n = len([l for l in src.splitlines() if l.strip()])
            if n > max_lines:
                long.append(f"cell {i}: {n} lines")
            defs += [f"cell {i}: {d}" for d in definitions(src)]
        if long or defs:
            flagged += 1
            print(f"{nb.name}: " + "; ".join(long + defs))
    return flagged


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", type=Path, help="folder to write <template>.py files into")
    ap.add_argument("--notebooks", type=Path, default=REPO / "notebooks")
    ap.add_argument("--stats", action="store_true", help="report long cells and definitions instead of extracting")
    ap.add_argument("--max-lines", type=int, default=15, help="a code cell longer than this is reported (--stats)")
    args = ap.parse_args(argv)
    notebooks = sorted(args.notebooks.glob("*.ipynb"))
    if not notebooks:
        ap.error(f"no notebooks in {args.notebooks}")
    if args.stats:
        return 1 if stats(notebooks, args.max_lines) else 0
    if args.out is None:
        ap.error("give an output folder, or --stats")
    for p in extract(notebooks, args.out):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
