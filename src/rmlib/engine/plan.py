"""A plan: many (model x prompt) sweeps written down once, expanded into jobs, and checked against the cache.

A plan is a YAML file (or the same dict in Python)::

    models: [tiny-llama, tiny-gemma2]        # registry ids, hub ids 'owner/name', or 'local:<name>'
    prompts: [greatest, best]                # prompt keys (rmlib.data.prompt_table) or literal prompt text
    tokens: "0:1000"                         # optional vocabulary slice LO:HI (default: the whole vocabulary)
    kind: sweep                              # 'sweep' (one-token answers) or 'answers' (multi-token answers)
    answers: [love, war]                     # with kind: answers, the answers to score under every prompt
    load: {head: rm, dtype: float32}         # optional rmlib.models.LoadOptions for every model
    mode: id_exact                           # optional sweep mode (id_exact | paper)

``kind: sweep`` gives an RM sweep or an LM log-prob sweep, whichever head the model is loaded with.
:func:`expand` turns a plan into :class:`Job` s grouped by model (one model loaded once runs all its jobs);
:func:`plan_status` says which are already complete in the cache. Running them is :mod:`rmlib.engine.plan_runner`;
every job writes through the ordinary sweep cache (:func:`rmlib.engine.sweep`), so a plan adds no storage of its own.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rmlib.engine.checks import SweepError

__all__ = ["Plan", "Job", "load_plan", "expand", "plan_status", "KINDS"]

KINDS = ("sweep", "answers")
_FIELDS = {"models", "prompts", "tokens", "kind", "answers", "load", "mode", "batch_size"}


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


def load_plan(plan) -> Plan:
    """A :class:`Plan` from a YAML path, a dict, or a Plan; every field checked with a message that says how to fix it."""
    if isinstance(plan, Plan):
        return plan
    if isinstance(plan, (str, Path)):
        import yaml
        path = Path(plan)
        if not path.is_file():
            raise SweepError(f"no plan file {path}")
        try:
            data = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            raise SweepError(f"{path} is not valid YAML: {exc}") from None
        if not isinstance(data, dict):
            raise SweepError(f"{path}: a plan is a mapping with at least 'models' and 'prompts'")
    elif isinstance(plan, dict):
        data = dict(plan)
    else:
        raise SweepError(f"a plan is a YAML path or a dict, not {type(plan).__name__}")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise SweepError(f"unknown plan fields {unknown}; a plan has {sorted(_FIELDS)}")
    for need in ("models", "prompts"):
        if need not in data:
            raise SweepError(f"the plan has no '{need}'")
    kind = data.get("kind", "sweep")
    if kind not in KINDS:
        raise SweepError(f"kind must be one of {KINDS}, not {kind!r}")
    answers = _strings(data["answers"], "answers") if kind == "answers" else ()
    if kind != "answers" and data.get("answers"):
        raise SweepError("answers are given but kind is not 'answers'")
    load = data.get("load") or {}
    if not isinstance(load, dict):
        raise SweepError(f"load must be a mapping of loading options, not {load!r}")
    from rmlib.models import LoadOptions
    LoadOptions.of(**load)  # unknown loading options fail here, before any job runs
    tokens = data.get("tokens")
    if tokens is not None:
        tokens = str(tokens)
        _token_slice(tokens)
    bs = data.get("batch_size")
    if bs is not None and (not isinstance(bs, int) or bs < 1):
        raise SweepError(f"batch_size must be a positive integer, not {bs!r}")
    return Plan(models=_strings(data["models"], "models"), prompts=_strings(data["prompts"], "prompts"),
                tokens=tokens, kind=kind, answers=answers, load=dict(load), mode=data.get("mode", "id_exact"),
                batch_size=bs)


def _token_slice(text: str | None):
    """'LO:HI', 'LO:' or ':HI' -> a slice; None -> None (the whole vocabulary)."""
    if text is None:
        return None
    try:
        lo, hi = (p.strip() for p in text.split(":", 1))
        return slice(int(lo) if lo else 0, int(hi) if hi else None)
    except ValueError:
        raise SweepError(f"tokens {text!r} is not a vocabulary slice: use LO:HI, LO: or :HI") from None


def _prompt_texts(keys) -> dict[str, str]:
    """Prompt keys of the study become their text; anything with a space is taken as the prompt itself."""
    from rmlib.data.prompts import prompt_table
    named = [k for k in keys if " " not in k.strip()]
    texts = {k: k for k in keys if k not in named}
    if named:
        table = prompt_table(named)
        texts.update(dict(zip(table.prompt_key, table.prompt)))
    return {k: texts[k] for k in keys}


def expand(plan) -> list[Job]:
    """The plan's jobs, grouped by model in the plan's order (a worker runs one model's jobs after one load)."""
    plan = load_plan(plan)
    texts = _prompt_texts(plan.prompts)
    load = tuple(sorted(plan.load.items()))
    if plan.kind == "answers":
        return [Job(m, "+".join(plan.prompts), texts[plan.prompts[0]], "answers", None, plan.answers,
                    tuple(texts[k] for k in plan.prompts), load, plan.mode, plan.batch_size) for m in plan.models]
    return [Job(m, k, texts[k], "sweep", plan.tokens, (), (), load, plan.mode, plan.batch_size)
            for m in plan.models for k in plan.prompts]


def _complete_results(root: Path) -> list[dict]:
    """meta.json of every complete result under a sweeps/answers folder (no hashing: a listing, not a check)."""
    out = []
    if root.is_dir():
        for d in root.iterdir():
            if (d / "COMPLETE").is_file() and (d / "meta.json").is_file():
                try:
                    out.append(json.loads((d / "meta.json").read_text()))
                except (OSError, ValueError):
                    continue
    return out


def plan_status(plan, cache_root=None) -> list[tuple[Job, bool]]:
    """Each job and whether a complete result for it is in the cache, found from the results' meta.json without
    loading any model. It is a listing: running the plan still checks the full key (revision, template, candidate
    ids) and every shard's hash, so a job listed as done whose model has since changed is recomputed."""
    from rmlib.engine.store import cache_parent
    plan = load_plan(plan)
    jobs = expand(plan)
    sweeps = _complete_results(cache_parent(cache_root, "sweeps"))
    dtype = plan.load.get("dtype")
    head = plan.load.get("head")

    def matches(meta: dict, job: Job) -> bool:
        if meta.get("model") not in (job.model, _registry_id(job.model)):
            return False
        if dtype and dtype != "auto" and meta.get("dtype") != dtype:
            return False
        if head and meta.get("kind") != head:
            return False
        return True

    out = []
    for job in jobs:
        if job.kind == "sweep":
            done = any(matches(m, job) and m.get("prompt") == job.prompt and m.get("mode", "id_exact") == job.mode
                       and _tokens_match(m, job.tokens) for m in sweeps)
        else:
            answers = _complete_results(cache_parent(None, "answers"))
            done = any(matches(m, job) and list(m.get("prompts", [])) == list(job.prompts)
                       and list(m.get("answers", [])) == list(job.answers) for m in answers)
        out.append((job, done))
    return out


def _registry_id(model: str) -> str:
    try:
        from rmlib.registry import registry
        spec = registry().get(model)
        return spec.id if spec is not None else model
    except Exception:  # a listing never fails on a registry problem
        return model


def _tokens_match(meta: dict, tokens: str | None) -> bool:
    s = _token_slice(tokens)
    if s is None or s.stop is None:
        return s is None or s.start == 0 or meta.get("n_candidates") is not None
    return meta.get("n_candidates") == s.stop - s.start
