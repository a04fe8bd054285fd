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
  chapters use it for "all" or "automatic". This check is a pydantic model of the chapter's parameters, built from
  its parameters cell (:func:`parameters_model`), not written beside it: the cell stays the one declaration.

A chapter that takes ``MODELS`` also declares ``TRUST_REMOTE_CODE`` (``[]``): the models whose own code may run in
this run, which :func:`check_parameters` hands to :func:`rmlib.models.trust_remote_code` once the checks pass. It is
a parameter like the others, so the page's parameter table shows it and a rerun with it gets a page of its own. Each
id it names must be one of the models the run loads (:data:`MODEL_PARAMETERS`), and a parameter that only compute
mode reads (:data:`COMPUTE_ONLY`) is refused in published mode, where it would change nothing (#62).
:func:`value_problems` is what `rmlib book run --estimate` checks too (:mod:`rmbook.book.run_check`).
"""
from __future__ import annotations

import ast
import difflib

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from rmlib.errors import RmlibError
from rmlib.models import trust_remote_code
from rmlib.registry import get_spec

TRUST_PARAMETER = "TRUST_REMOTE_CODE"  # the models whose own code may run in this chapter's run (none by default)
# The parameters that name models a chapter loads (good_teachers' POLICY and GROUND_TRUTH, method's demo model, the
# value cards' TRAINED): TRUST_REMOTE_CODE may name only these models.
MODEL_PARAMETERS = ("MODELS", "POLICY", "GROUND_TRUTH", "PAPER_DEMO_MODEL", "TRAINED")
COMPUTE_ONLY = ("TOKENS",)  # read only when a chapter's MODE computes scores; published scores sweep no vocabulary

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


_KIND = {bool: "True or False", int: "an integer", float: "a number", str: "a string", list: "a list",
         tuple: "a list", dict: "a mapping"}  # what a value must be, by its default's type, in the message
_TYPE = {bool: bool, int: int, float: float, str: str, list: list | tuple, tuple: list | tuple, dict: dict}


def parameters_model(declared: dict) -> type[BaseModel]:
    """The chapter's parameters as a pydantic model, built from its parameters cell (the one place they are
    declared, which papermill reads too; a model written beside it would be a second list to keep in step): each
    parameter typed by its default, None always allowed (the chapters use it for "all" or "automatic"), strict (text
    is never parsed into a list or a number: papermill's ``-p`` passes text) and finite. A default of another type
    (None, say) leaves its parameter unchecked."""
    fields = {name: (_TYPE[type(default)] | None, None) for name, default in declared.items()
              if type(default) in _TYPE}
    return create_model("Parameters", __config__=ConfigDict(strict=True, allow_inf_nan=False), **fields)


def _type_problems(declared: dict, values: dict, skip) -> list[str]:
    """The values whose type contradicts their default (:func:`parameters_model`), in the cell's order, each with
    what it should be; a list or mapping given as text gets the YAML hint."""
    checked = {n: d for n, d in declared.items() if n not in skip}
    try:
        parameters_model(checked).model_validate({n: values.get(n) for n in checked})
        return []
    except ValidationError as e:
        errors = e.errors()
    problems = []
    for name, default in checked.items():
        kinds = {err["type"] for err in errors if err["loc"][0] == name}
        if not kinds:
            continue
        value = values.get(name)
        if "finite_number" in kinds:
            problems.append(f"{name}={value!r} should be a finite number, like its default {default!r}")
            continue
        kind = _KIND[type(default)]
        hint = (f" (give lists and mappings as YAML: `rmlib book run ... -p {name} '[\"...\"]'`, or papermill's "
                f"-y '{name}: [...]', since papermill's -p passes text)"
                if isinstance(value, str) and kind in ("a list", "a mapping") else "")
        problems.append(f"{name}={value!r} should be {kind} (or None), like its default {default!r}{hint}")
    return problems


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
    for name in choices:
        if name not in declared:
            raise ParameterError(f"check_parameters({name}=...): the parameters cell declares no {name}")
    problems += value_problems(declared, namespace, choices)
    if problems:
        raise ParameterError("; ".join(problems) + f". Declared parameters: {', '.join(sorted(declared))}")
    if TRUST_PARAMETER in declared:
        trust_remote_code(list(namespace.get(TRUST_PARAMETER) or []))  # [] (the default) trusts none


def value_problems(declared: dict, values: dict, choices: dict) -> list[str]:
    """What :func:`check_parameters` refuses in the values of a chapter's parameters (``declared``: {name: default}
    of its parameters cell; ``values``: the run's, defaults included): a value outside its ``choices``, one whose type
    contradicts its default, a ``TRUST_REMOTE_CODE`` id that names no model of the run, a compute-only parameter in
    published mode."""
    problems = [f"{name}={values.get(name)!r}: choose one of {list(allowed)}"
                for name, allowed in choices.items() if values.get(name) not in list(allowed)]
    problems += _type_problems(declared, values, skip=choices)
    if problems:
        return problems  # the checks below read the values' types
    return _untrusted(declared, values) + _published_only(declared, values, choices)


def _untrusted(declared: dict, values: dict) -> list[str]:
    """A ``TRUST_REMOTE_CODE`` id that is none of the run's models (by id, or by the registry id a nickname stands
    for); unchecked when ``MODELS`` is None (the chapter's own choice, not known here)."""
    trusted, models = values.get(TRUST_PARAMETER), values.get("MODELS")
    if TRUST_PARAMETER not in declared or not trusted or not isinstance(models, (list, tuple)):
        return []
    named = {p: values.get(p) for p in MODEL_PARAMETERS if p in declared and values.get(p) is not None}
    loaded = {m for v in named.values() for m in ([v] if isinstance(v, str) else v) if isinstance(m, str)}
    stray = [t for t in trusted if t not in loaded]
    if stray:
        loaded |= {_registry_id(m) for m in loaded}
        stray = [t for t in stray if t not in loaded]
    others = ", ".join(f"{p} {v!r}" for p, v in named.items() if p != "MODELS")
    return [f"{TRUST_PARAMETER} names {t!r}, which is not in MODELS {list(models)}{f' (nor {others})' if others else ''}"
            f": it lets the own code of this run's models run; add {t!r} to MODELS, or leave it out of "
            f"{TRUST_PARAMETER}" for t in stray]


def _registry_id(model_id: str) -> str:
    try:
        return get_spec(model_id).id
    except RmlibError:
        return model_id


def _published_only(declared: dict, values: dict, choices: dict) -> list[str]:
    """A compute-only parameter (:data:`COMPUTE_ONLY`) given another value than its default while ``MODE`` is
    'published', where nothing reads it."""
    if "MODE" not in declared or values.get("MODE") != "published":
        return []
    computing = [m for m in choices.get("MODE", ["compute", "both"]) if m != "published"]
    modes = " or ".join(repr(m) for m in computing)
    return [f"{name}={values.get(name)!r} applies only when MODE is {modes}; this run's MODE is 'published', whose "
            f"released scores sweep no vocabulary: give MODE {computing[0]!r}, or leave {name} out"
            for name in COMPUTE_ONLY if name in declared and values.get(name) != declared[name]]
