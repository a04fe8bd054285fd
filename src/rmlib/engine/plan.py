"""A plan: many (model x prompt) sweeps written down once, expanded into jobs, and checked against the cache.

A plan is a YAML file (or the same dict in Python)::

    models:                                  # registry ids, hub ids 'owner/name', or 'local:<name>' ...
      - tiny-llama
      - {id: tiny-gemma2, load: {dtype: float32}}   # ... or {id: ..., load: {...}}: that model's own load options
    prompts: [greatest, best]                # prompt keys (rmlib.data.prompt_table) or literal prompt text
    tokens: "0:1000"                         # optional: LO:HI, LO:, :HI or ids "1,2,3" (default: every token)
    kind: sweep                              # 'sweep' (one-token answers) or 'answers' (multi-token answers)
    answers: [love, war]                     # with kind: answers, the answers to score under every prompt
    load: {head: rm}                         # optional rmlib.models.LoadOptions for every model
    mode: id_exact                           # optional sweep mode (id_exact | paper)

``kind: sweep`` gives an RM sweep or an LM log-prob sweep, whichever head the model is loaded with.

A model's loading options (:func:`model_load`) are built field by field, the later winning: the registry's (a
pinned ``revision``), then the plan's ``load:``, then the model's own ``load:``. The dtype is not forced: left out
(or ``auto``) it is the registry's dtype, the paper's, on GPU, and on a CPU bfloat16 where it has bf16 units, else
float32 (:func:`rmlib.models.resolve_dtype`); :attr:`Job.gpu_dtype` names it. Remote code is never implied: a model
whose registry entry needs its own code is refused unless its ``load:`` (or the plan's) says
``trust_remote_code: true``. A ``revision`` names one model's commit, so the plan-wide ``load:`` of a plan of several
models may not hold one. Every mistake is a
:class:`SweepError` before any job runs: an unknown key of a model entry, an unknown loading option or value
(``dtype: fp8``), a model id that names nothing (:func:`rmlib.registry.get_spec`), an unknown ``mode``, a
``batch_size`` that is not a positive integer (``true`` included), an empty or reversed ``tokens`` slice, and in
:func:`expand` a prompt named twice (once by its key, once by its text).
:func:`expand` turns a plan into :class:`Job` s grouped by model (one model loaded once runs all its jobs);
:func:`plan_status` says which are already complete in the cache, by each job's request key. Running them is :mod:`rmlib.engine.plan_runner`;
every job writes through the ordinary sweep cache (:func:`rmlib.engine.sweep`), so a plan adds no storage of its own.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from rmlib import registry
from rmlib.data.prompts import prompt_table
from rmlib.engine.tokens import parse_tokens
from rmlib.errors import SweepError
from rmlib.registry import get_spec

__all__ = ["Plan", "Job", "load_plan", "expand", "plan_status", "model_load", "KINDS"]

KINDS = ("sweep", "answers")
_FIELDS = {"models", "prompts", "tokens", "kind", "answers", "load", "mode", "batch_size"}
_MODEL_FIELDS = {"id", "load"}


@dataclass(frozen=True)
class Plan:
    models: tuple[str, ...]
    prompts: tuple[str, ...]
    tokens: str | None = None
    kind: str = "sweep"
    answers: tuple[str, ...] = ()
    load: dict = field(default_factory=dict)
    mode: str = "id_exact"
    batch_size: int | None = None
    model_load: dict = field(default_factory=dict)  # model id -> that model's own load options (its models: entry)


@dataclass(frozen=True)
class Job:
    """One unit of work: one model, one prompt (or, for answers, all prompts of the plan). ``prompt_key`` is what
    the plan named; ``prompt`` is its text."""
    model: str
    prompt_key: str
    prompt: str
    kind: str = "sweep"
    tokens: str | None = None
    answers: tuple[str, ...] = ()
    prompts: tuple[str, ...] = ()  # kind 'answers': every prompt text
    load: tuple = ()                # LoadOptions fields as sorted (name, value) pairs (hashable)
    mode: str = "id_exact"
    batch_size: int | None = None

    @property
    def name(self) -> str:
        return f"{self.model} | {self.prompt_key}"

    @property
    def gpu_dtype(self) -> str | None:
        """The dtype this job runs in on a GPU: its load's dtype, else (unset or auto) the registry's."""
        dtype = dict(self.load).get("dtype")
        if dtype and dtype != "auto":
            return dtype
        spec = _spec(self.model)
        return spec.dtype if spec is not None else None

    def to_dict(self) -> dict:
        return asdict(self)


def _strings(value, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise SweepError(f"the plan's {what} must be a non-empty list of strings, not {value!r}")
    if len(set(value)) != len(value):
        raise SweepError(f"the plan's {what} list a value twice: {sorted({v for v in value if value.count(v) > 1})}")
    return tuple(value)


def _load_options(value, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SweepError(f"{what} must be a mapping of loading options, not {value!r}")
    from rmlib.models import LoadOptions
    try:
        LoadOptions.of(**value)  # unknown loading options fail here, before any job runs
    except ValueError as exc:
        raise SweepError(f"{what}: {exc}") from None
    return dict(value)


def _models(value) -> tuple[tuple[str, ...], dict[str, dict]]:
    """The plan's model ids, and the own load options of those given as {id: ..., load: {...}}."""
    entries = value if isinstance(value, (list, tuple)) else [value]
    ids, own = [], {}
    for entry in entries:
        if isinstance(entry, dict):
            unknown = sorted(set(entry) - _MODEL_FIELDS)
            if unknown or not isinstance(entry.get("id"), str):
                raise SweepError(f"a models entry that is a mapping has an 'id' (a model id) and optionally 'load' "
                                 f"(its loading options), not {entry!r}")
            own[entry["id"]] = _load_options(entry.get("load"), f"the load of {entry['id']}")
            entry = entry["id"]
        ids.append(entry)
    return _strings(ids, "models"), {m: o for m, o in own.items() if o}


def _plan_data(plan) -> dict:
    """The plan's fields from a YAML path or a dict (a copy), or an error that says what a plan is."""
    if isinstance(plan, (str, Path)):
        import yaml
        path = Path(plan)
        if not path.is_file():
            raise SweepError(f"no plan file {path}")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise SweepError(f"{path} is not a text file (not UTF-8): a plan is a YAML file") from None
        except yaml.YAMLError as exc:
            raise SweepError(f"{path} is not valid YAML: {exc}") from None
        if not isinstance(data, dict):
            raise SweepError(f"{path}: a plan is a mapping with at least 'models' and 'prompts'")
    elif isinstance(plan, dict):
        data = dict(plan)
    else:
        raise SweepError(f"a plan is a YAML path or a dict, not {type(plan).__name__}")
    return data


def _plan_tokens(tokens):
    """The plan's ``tokens`` text, checked by the one parser (:func:`rmlib.engine.tokens.parse_tokens`); a number is
    what YAML makes of an unquoted slice."""
    if tokens is None:
        return None
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        raise SweepError(f"tokens is the number {tokens}, not a slice: YAML reads an unquoted LO:HI such as 1:30 "
                         f"as a base-60 number (1 x 60 + 30 = 90); quote the slice: tokens: \"LO:HI\"")
    if not isinstance(tokens, str):
        raise SweepError(f"tokens must be a vocabulary slice \"LO:HI\" (a string), not {tokens!r}")
    parse_tokens(tokens)
    return tokens


def load_plan(plan) -> Plan:
    """A :class:`Plan` from a YAML path, a dict, or a Plan; every field checked with a message that says how to fix it."""
    if isinstance(plan, Plan):
        return plan
    data = _plan_data(plan)
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise SweepError(f"unknown plan fields {unknown}; a plan has {sorted(_FIELDS)}")
    for need in ("models", "prompts"):
        if need not in data:
            raise SweepError(f"the plan has no '{need}'")
    kind = data.get("kind", "sweep")
    if kind not in KINDS:
        raise SweepError(f"kind must be one of {KINDS}, not {kind!r}")
    if kind == "answers" and "answers" not in data:
        raise SweepError("kind: answers scores the plan's answers under every prompt, but the plan has no 'answers': "
                         "add answers: [love, war, ...]")
    answers = _strings(data["answers"], "answers") if kind == "answers" else ()
    if kind != "answers" and data.get("answers"):
        raise SweepError("answers are given but kind is not 'answers'")
    load = _load_options(data.get("load"), "load")
    models, own_load = _models(data["models"])
    if load.get("revision") and len(models) > 1:
        raise SweepError(f"the plan's load gives revision {load['revision']!r} to all {len(models)} models; a "
                         "revision is one model's commit: give it in that model's entry, "
                         "{id: ..., load: {revision: ...}}")
    tokens = _plan_tokens(data.get("tokens"))
    bs = data.get("batch_size")
    if bs is not None and (isinstance(bs, bool) or not isinstance(bs, int) or bs < 1):
        raise SweepError(f"batch_size must be a positive integer, not {bs!r}")
    from rmlib.engine.token_sweep import MODES
    mode = data.get("mode", "id_exact")
    if mode not in MODES:
        raise SweepError(f"mode must be one of {MODES}, not {mode!r}")
    _known_models(models)
    return Plan(models=models, prompts=_strings(data["prompts"], "prompts"),
                tokens=tokens, kind=kind, answers=answers, load=load, mode=mode,
                batch_size=bs, model_load=own_load)


def _known_models(models) -> None:
    """Every model id must name something (the registry, a hub id 'owner/name', a trained ``local:`` RM); the
    registry says so without the network or loading anything."""
    for model in models:
        try:
            get_spec(model)
        except ValueError as exc:
            raise SweepError(f"the plan's model {model!r}: {exc}") from None


def _prompt_texts(keys) -> dict[str, str]:
    """Prompt keys of the study become their text; anything with a space is taken as the prompt itself."""
    named = [k for k in keys if " " not in k.strip()]
    texts = {k: k for k in keys if k not in named}
    if named:
        table = prompt_table(named)
        texts.update(dict(zip(table.prompt_key, table.prompt)))
    return {k: texts[k] for k in keys}


def _spec(model: str):
    """The registry's spec of ``model``, or None when it cannot be resolved here (a ``local:`` RM not trained yet):
    then its jobs fail when they load it, with the loader's message, and the other jobs run."""
    try:
        return registry.get_spec(model)
    except ValueError:
        return None


def _own_code(spec) -> bool:
    """Whether loading ``spec`` runs the model's own code: its registry entry says so, or its ``local:`` folder's
    config maps to Python files (the loader's rule, :func:`rmlib.models.policy.has_own_code`)."""
    if spec.trust_remote_code:
        return True
    if spec.source != "local":
        return False
    from rmlib.models.policy import has_own_code
    return has_own_code(Path(spec.path))


def model_load(plan, model: str) -> dict:
    """The loading options of ``model``'s jobs: the registry's pinned revision, then the plan's ``load:``, then the
    model's own ``load:`` (later wins); no dtype unless the plan gives one (see the module docstring)."""
    plan = load_plan(plan)
    spec = _spec(model)
    opts = {"revision": spec.revision} if spec is not None and spec.source == "hub" and spec.revision else {}
    opts.update(plan.load)
    opts.update(plan.model_load.get(model, {}))
    if spec is not None and _own_code(spec) and not opts.get("trust_remote_code"):
        raise SweepError(f"{model} runs its own code (its registry entry or its folder's auto_map says so), "
                         f"which a plan never implies: read that code, then opt in with "
                         f"{{id: {model}, load: {{trust_remote_code: true}}}}")
    return opts


def expand(plan) -> list[Job]:
    """The plan's jobs, grouped by model in the plan's order (a worker runs one model's jobs after one load)."""
    plan = load_plan(plan)
    texts = _prompt_texts(plan.prompts)
    twice = {t: [k for k in plan.prompts if texts[k] == t] for t in texts.values()}
    twice = [ks for ks in twice.values() if len(ks) > 1]
    if twice:
        raise SweepError(f"the plan's prompts name one prompt twice (a key and its text): {twice}; keep one of each")
    loads = {m: tuple(sorted(model_load(plan, m).items())) for m in plan.models}
    if plan.kind == "answers":
        return [Job(m, "+".join(plan.prompts), texts[plan.prompts[0]], "answers", None, plan.answers,
                    tuple(texts[k] for k in plan.prompts), loads[m], plan.mode, plan.batch_size) for m in plan.models]
    return [Job(m, k, texts[k], "sweep", plan.tokens, (), (), loads[m], plan.mode, plan.batch_size)
            for m in plan.models for k in plan.prompts]


def plan_status(plan, cache_root=None) -> list[tuple[Job, bool | None]]:
    """Each job, and True when its result is complete in the cache, False when it is not, None when that cannot be
    told without loading its model. Decided by the job's own request key (:func:`rmlib.engine.sweep_index.request_key`:
    the model's registry entry and a fingerprint of its weights, the prompt, the tokens, the loading options
    (seed and ``allow_untrained_head`` included), the mode, the library versions), which a plan run records after
    each sweep: done means that key maps to a complete result whose shards all check out. Models whose weights have
    no cheap fingerprint (tiny random models, unpinned hub models) and answer jobs are None: never "done" on a
    guess. Running the plan still checks every key and shard."""
    from rmlib.engine import sweep_index
    from rmlib.models import LoadOptions
    jobs = expand(load_plan(plan))
    out = []
    for job in jobs:
        if job.kind != "sweep":
            out.append((job, None))
            continue
        load = LoadOptions.of(**dict(job.load))
        request = sweep_index.request_key(job.model, job.prompt, parse_tokens(job.tokens), load, mode=job.mode)
        out.append((job, None if request is None else sweep_index.listed(
            request, cache_root, expect=sweep_index.stands_for(job.model, job.prompt, load))))
    return out
