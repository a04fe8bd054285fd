"""The parameters of a run, shown once on its page.

papermill leaves two code cells on an executed chapter: the template's ``parameters`` cell and the
``injected-parameters`` cell it adds after it. Both stay in the notebook (a reader who reruns it needs them), but the
page hides them (Jupyter Book's ``remove-cell`` tag) and shows one compact table instead: every parameter with the
value this run used.
"""
from __future__ import annotations

import ast
import os

__all__ = ["parameters_markdown", "show_parameters_once", "HIDDEN_PARAMETERS"]

# Where results go and which chapter a shared template runs as: not inputs a reader needs to see.
HIDDEN_PARAMETERS = {"RESULTS_DIR", "CHAPTER"}
MAX_VALUE_CHARS = 400  # a list of model ids must show whole ('loca...' told a reader nothing)
TABLE_TAG = "rmlib-parameters"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _short(value) -> str:
    text = _cell(repr(value))
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 3] + "..."


def parameters_markdown(defaults: dict, params: dict, meanings: dict | None = None) -> str:
    """Every declared parameter (``defaults``: {name: source text of its default}) with the value of this run
    (``params`` override the defaults; those set by this run are marked) and what it is (``meanings``: the
    template's own comment on that line, which says what None means where None is allowed), in a collapsed box:
    the chapter's content comes first, the settings are one click away."""
    meanings = meanings or {}
    rows = []
    for key, source in defaults.items():
        if key in HIDDEN_PARAMETERS:
            continue
        if key in params:
            value, mark = params[key], " *"
        else:
            try:
                value = ast.literal_eval(source)
            except (ValueError, SyntaxError):
                value = source
            mark = ""
        rows.append(f"| `{key}`{mark} | `{_short(value)}` | {_cell(meanings.get(key, ''))} |")
    if not rows:
        return ""
    return (f"```{{admonition}} Parameters of this run ({len(rows)}; * set for this run, the others are the "
            "template's defaults)\n:class: dropdown\n"
            "| parameter | value | what it is |\n|---|---|---|\n" + "\n".join(rows) + "\n```")


def _declared(source: str) -> dict:
    """{name: source text of its default} of a parameters cell, in order."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.get_source_segment(source, node.value)
    return out


def _meanings(source: str) -> dict:
    """{name: the comment after its assignment, with the indented comment lines that continue it} of a parameters
    cell: the template's own words for what each parameter is and what None means."""
    lines = source.splitlines()
    ends = {node.end_lineno: (node.targets[0].id, node.end_col_offset) for node in ast.parse(source).body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}
    out, current = {}, None
    for no, line in enumerate(lines, start=1):
        if no in ends:
            current, col = ends[no]
            out[current] = line[col:].strip().removeprefix("#").strip()
        elif current and line[:1].isspace() and line.strip().startswith("#"):
            out[current] = f"{out[current]} {line.strip().lstrip('#').strip()}".strip()
        else:
            current = None
    return out


def show_parameters_once(notebook: str | os.PathLike, params: dict) -> None:
    """Hide the parameters and injected-parameters cells of an executed ``notebook`` on the page and put one
    parameters table after them (rewrites the file; running it twice leaves one table)."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    nb.cells = [c for c in nb.cells if TABLE_TAG not in c.get("metadata", {}).get("tags", [])]
    last = None
    for i, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).setdefault("tags", [])
        if cell.cell_type == "code" and {"parameters", "injected-parameters"} & set(tags):
            if "remove-cell" not in tags:
                tags.append("remove-cell")
            last = i
    if last is None:
        return
    source = next(c.source for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    text = parameters_markdown(_declared(source), params, _meanings(source))
    if text:
        nb.cells.insert(last + 1, nbformat.v4.new_markdown_cell(text, metadata={"tags": [TABLE_TAG]}))
    nbformat.write(nb, str(notebook))
