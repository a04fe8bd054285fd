"""A chapter checks its own parameters, so papermill users get the protection the book runner gives.

papermill warns about a parameter the notebook does not declare (`-p MDOE compute`) and then runs the
chapter with its defaults, exiting 0. The book runner refuses such keys before it starts, but someone running
papermill directly, or editing the parameters cell in JupyterLab, has no such guard. So every chapter calls
`check_parameters` in the cell right after its `parameters` cell: after papermill's injected cell, before any work.

The declared names and defaults are read from the parameters cell itself, as the kernel ran it (IPython keeps
the source of every cell it ran), so a parameter added to the cell needs no change here. The cell papermill
injects is recognised by its first line, `# Parameters` (papermill's own comment). Three checks:

* an injected name the parameters cell does not declare (with a suggestion for a likely misspelling);
* a value outside the choices the chapter lists in its call, e.g. `check_parameters(MODE=["published", "compute"])`;
* a value whose type contradicts its default: a string where the default is a list (`-p MODELS '["a"]'`
  passes a string; lists need `-y`), a string for a number, a number for a flag. None is always allowed: the
  chapters use it for "all" or "automatic".

A chapter that takes ``MODELS`` also declares ``TRUST_REMOTE_CODE`` (``[]``): the models whose own code may run in
this run, which :func:`check_parameters` hands to :func:`rmlib.models.trust_remote_code` once the checks pass. It is
a parameter like the others, so the page's parameter table shows it and a rerun with it gets a page of its own.
"""
from __future__ import annotations

import ast
import difflib
import math
from rmlib.errors import RmlibError
from rmlib.models import trust_remote_code

TRUST_PARAMETER = "TRUST_REMOTE_CODE"  # the models whose own code may run in this chapter's run (none by default)

PAPERMILL_COMMENT = "# Parameters"   # first line of the cell papermill injects (papermill.translators)
PAPERMILL_BUILTINS = {"pm"}          # papermill's own injected names


# Parameters renamed so that one concept has one name across chapters (issue #13): prompts given by key end in _KEY(S),
# prompts given as text in _TEXT(S). An old name gets "renamed to ..." instead of a bare "not a parameter".
RENAMED = {
    "SWEEP_PROMPTS": ("SWEEP_PROMPT_KEYS",),                      # implicit_rewards
    "PROMPT_KEYS": ("PROFILE_PROMPT_KEYS", "COMPUTE_PROMPT_KEYS"),  # implicit_rewards; longer_answers
    "PROMPTS": ("PROMPT_TEXTS",),                                 # method
    "COMPUTE_PROMPT": ("COMPUTE_PROMPT_TEXT",),                   # good_teachers
    # one name for a resampling count (#26): N_RESAMPLES, and N_RESAMPLES_CI where a chapter has two
    "N_BOOTSTRAP": ("N_RESAMPLES_CI", "N_RESAMPLES"),             # elo_misalignment; blinding, distributions
    "N_PERMUTATIONS": ("N_RESAMPLES",),                           # heterogeneity, value profiles, implicit_rewards
    # which weights train (full | last_n | lora) is TUNING, so that METHOD means only a sweep's method (#26)
    "METHOD": ("TUNING",),                                        # finetuning, implicit_vs_explicit
}


def unknown_parameter_hint(name: str, declared) -> str:
    """Why ``name`` is not among ``declared``, when that can be told: a renamed parameter, or a likely
    misspelling (`` (did you mean MODE?)``); else ''."""
    declared = list(declared)
    renamed = [new for new in RENAMED.get(name.upper(), ()) if new in declared]
    if renamed:
        return f" (renamed {renamed[0]})"
    close = difflib.get_close_matches(name.upper(), declared, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


class ParameterError(RmlibError, ValueError):
    """A chapter was given a parameter it does not declare, or a value it cannot use."""


def _assignments(source: str) -> dict | None:
    """{name: value} when every statement of `source` assigns a literal to a name (what papermill can parameterise
    and inject); else None: the cell is not a parameters cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    out = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            name, value = stmt.target.id, stmt.value
        else:
            return None
        try:
            out[name] = _literal(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return out


def _literal(node):
    """``ast.literal_eval``, plus ``float('nan')``, ``float('inf')`` and ``float('-inf')``: what papermill writes for
    a non-finite number (``-y 'X: .nan'``), so such a cell is still recognised as papermill's."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.strip().lower() in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")):
        return float(node.args[0].value)
    return ast.literal_eval(node)


def _is_injected(source: str) -> bool:
    lines = [line for line in source.splitlines() if line.strip()]
    return bool(lines) and lines[0].strip() == PAPERMILL_COMMENT and _assignments(source) is not None


def locate_cells(history: list[str]) -> tuple[str, list[str]]:
    """(parameters cell, injected cells) among the sources a kernel ran, the last being the calling cell."""
    ran = [src for src in list(history)[:-1] if src and src.strip()]
    injected = []
    while len(ran) >= 2 and _is_injected(ran[-1]) and _assignments(ran[-2]) is not None:
        injected.insert(0, ran.pop())  # (a parameters cell that itself starts "# Parameters" is not taken for one)
    if not ran or _assignments(ran[-1]) is None:
        raise ParameterError("check_parameters() must run in the cell right after the chapter's parameters cell "
                             "(run the notebook from the top)")
    return ran[-1], injected


def _type_problem(name: str, value, default) -> str | None:
    if value is None or default is None:
        return None
    if isinstance(default, bool):
        ok, kind = isinstance(value, bool), "True or False"
    elif isinstance(default, int):
        ok, kind = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif isinstance(default, float):
        ok, kind = isinstance(value, (int, float)) and not isinstance(value, bool), "a number"
        if ok and not math.isfinite(value):
            return f"{name}={value!r} should be a finite number, like its default {default!r}"
    elif isinstance(default, str):
        ok, kind = isinstance(value, str), "a string"
    elif isinstance(default, (list, tuple)):
        ok, kind = isinstance(value, (list, tuple)), "a list"
    elif isinstance(default, dict):
        ok, kind = isinstance(value, dict), "a mapping"
    else:
        return None
    if ok:
        return None
    hint = (f" (papermill's -p passes text; give lists and mappings as YAML: -y '{name}: [...]')"
            if isinstance(value, str) and kind in ("a list", "a mapping") else "")
    return f"{name}={value!r} should be {kind} (or None), like its default {default!r}{hint}"


def check_parameters(namespace: dict | None = None, *, history: list[str] | None = None, **choices) -> None:
    """Raise ParameterError when the chapter got an undeclared parameter or a value it cannot use.

    In a notebook call it with no namespace or history (they come from the running kernel), naming the allowed
    values of the parameters that have a fixed set: `check_parameters(MODE=["published", "compute", "both"])`.
    """
    if namespace is None or history is None:
        from IPython import get_ipython
        shell = get_ipython()
        if shell is None:
            raise ParameterError("check_parameters() reads the running notebook kernel; outside one, pass "
                                 "namespace= and history= (the cell sources run so far)")
        namespace = shell.user_ns if namespace is None else namespace
        history = shell.history_manager.input_hist_raw if history is None else history
    params_cell, injected = locate_cells(history)
    declared = _assignments(params_cell)
    problems = []
    given = [n for src in injected for n in _assignments(src) if n not in PAPERMILL_BUILTINS]
    for name in sorted(set(given) - set(declared)):
        problems.append(f"{name} is not a parameter of this chapter{unknown_parameter_hint(name, declared)}")
    for name, allowed in choices.items():
        if name not in declared:
            raise ParameterError(f"check_parameters({name}=...): the parameters cell declares no {name}")
        if namespace.get(name) not in list(allowed):
            problems.append(f"{name}={namespace.get(name)!r}: choose one of {list(allowed)}")
    for name, default in declared.items():
        if name in choices:
            continue
        problem = _type_problem(name, namespace.get(name), default)
        if problem:
            problems.append(problem)
    if problems:
        raise ParameterError("; ".join(problems) + f". Declared parameters: {', '.join(sorted(declared))}")
    if TRUST_PARAMETER in declared:
        trust_remote_code(list(namespace.get(TRUST_PARAMETER) or []))  # [] (the default) trusts none
