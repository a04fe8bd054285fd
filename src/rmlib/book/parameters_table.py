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
MAX_VALUE_CHARS = 80
TABLE_TAG = "rmlib-parameters"


def _short(value) -> str:
    text = repr(value).replace("|", "\\|")
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 3] + "..."


def parameters_markdown(defaults: dict, params: dict) -> str:
    """A markdown table of every declared parameter (``defaults``: {name: source text of its default}) with the value
    of this run (``params`` override the defaults); those set by this run are marked."""
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
        rows.append(f"| `{key}`{mark} | `{_short(value)}` |")
    if not rows:
        return ""
    return ("**Parameters of this run** (* set for this run; the others are the template's defaults)\n\n"
            "| parameter | value |\n|---|---|\n" + "\n".join(rows))


def _declared(source: str) -> dict:
    """{name: source text of its default} of a parameters cell, in order."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.get_source_segment(source, node.value)
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
    defaults = _declared(next(c.source for c in nb.cells if "parameters" in c.metadata.get("tags", [])))
    text = parameters_markdown(defaults, params)
    if text:
        nb.cells.insert(last + 1, nbformat.v4.new_markdown_cell(text, metadata={"tags": [TABLE_TAG]}))
    nbformat.write(nb, str(notebook))
