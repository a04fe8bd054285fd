"""Every model a chapter can name, and what is known about it, without loading anything (no torch).

The registry (``registry.yaml``) lists the 10 RMs of the two papers, the embedded GGUF language models and the tiny
random models; a hub id ``owner/name`` and ``local:<name>[@step<N>]`` (an RM that rmlib trained) resolve too. It sits
below the data layer because the published scores are organised by paper RM, and below the model loaders, which
read a :class:`ModelSpec` to know how to build a model (:mod:`rmlib.models`).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Sequence

import yaml

from rmlib import config
from rmlib.storage.integrity import read_manifest, sha256_bytes
from rmlib.errors import RmlibError, as_list

__all__ = ["ModelError", "ModelSpec", "registry", "paper_rms", "embedded_lms", "get_spec", "spec_at", "local_rm_dir",
           "model_info", "reference_lm", "RUN_FILE", "read_run_file", "local_rms", "split_available"]

RUN_FILE = "rmlib_run.yaml"  # what an rmlib training export records about itself (rmlib.train.export writes it)


class ModelError(RmlibError, ValueError):
    """A model id that names nothing, or a model that cannot be loaded as asked."""


@dataclass(frozen=True)
class ModelSpec:
    id: str
    kind: str                 # rm | lm
    source: str               # hub | embedded | tiny | local
    family: str = "unknown"
    base: str = "unknown"
    developer: str = "unknown"
    size_b: float | None = None
    nickname: str = ""
    revision: str | None = None
    dtype: str = "bfloat16"
    score: str = "logits0"             # the default score reader (rmlib.models.reward_heads.READERS)
    score_readers: tuple = ()          # other readers the model offers (e.g. URM's own gated reward)
    trust_remote_code: bool = False
    attn_implementation: str | None = None
    chat_template: str = "own"
    instruct: bool | None = None
    reward_bench_rank: int | None = None
    gguf: str | None = None
    upstream: str | None = None
    path: str | None = None
    arch: dict | None = None           # the base model's dimensions (hidden, layers, ...): rmlib.engine.cost
    head_layout: str | None = None     # a native head's layout: 'read' from its published code, or 'inferred'
    extra: dict = field(default_factory=dict)


@functools.cache
def registry() -> dict[str, ModelSpec]:
    raw = yaml.safe_load(resources.files("rmlib").joinpath("registry.yaml").read_text())
    specs = {}
    for section, kind, source in (("paper_rms", "rm", "hub"), ("embedded", "lm", "embedded"), ("tiny", "lm", "tiny")):
        for mid, fields in raw[section].items():
            if "score_readers" in fields:
                fields = {**fields, "score_readers": tuple(fields["score_readers"])}
            specs[mid] = ModelSpec(id=mid, kind=kind, source=source, **fields)
    return specs


def embedded_lms() -> list[str]:
    """Ids of the LMs embedded as GGUF packages (what the chapters' compute modes score by default)."""
    return [mid for mid, s in registry().items() if s.source == "embedded"]


def paper_rms():
    """The 10 RMs of the two papers, as a DataFrame (id, nickname, family, base, developer, size_b, ...)."""
    import pandas as pd
    rows = [s.__dict__ for s in registry().values() if s.source == "hub" and s.kind == "rm"]
    return pd.DataFrame(rows).drop(columns=["extra", "gguf", "path", "upstream", "arch"])


_LOCAL = re.compile(r"^local:(?P<name>[^@]+)(@step(?P<step>\d+))?$")


def local_rm_dir(name: str, step: int | None = None) -> Path:
    """Where rmlib's training writes an RM: cache/rms/<name>[/step-<n>]."""
    base = Path(name) if Path(name).is_absolute() else config.cache_dir() / "rms" / name
    return base / f"step-{step}" if step is not None else base


def local_rms() -> list[dict]:
    """The models rmlib trained that the cache holds (``cache/rms/<name>`` with a finished export), by name: id
    (``local:<name>``), kind (rm; lm for a DPO run, an implicit RM), base_model, objective, sources, n_pairs, steps,
    checkpoints (the steps of its ``step-<n>`` exports), path, run (its run file) and problem (why the run file
    could not be read, else None). Nothing is loaded."""
    root = config.cache_dir() / "rms"
    rows = []
    for folder in sorted(p for p in root.glob("*") if p.is_dir() and (p / "config.json").exists()):
        model_id, problem, run = f"local:{folder.name}", None, {}
        try:
            run = read_run_file(folder, model_id) if (folder / RUN_FILE).exists() else {}
        except ModelError as exc:
            problem = str(exc)
        steps = sorted(int(p.name[5:]) for p in folder.glob("step-*")
                       if p.name[5:].isdigit() and (p / "config.json").exists())
        objective = run.get("objective", "bradley_terry" if run else None)
        rows.append({"id": model_id, "kind": "lm" if objective == "dpo" else "rm", "base_model": run.get("base_model"),
                     "objective": objective, "sources": list(run.get("sources") or []), "n_pairs": run.get("n_pairs"),
                     "steps": run.get("steps"), "checkpoints": steps, "path": folder, "run": run,
                     "problem": problem})
    return rows


def read_run_file(folder: Path, what: str) -> dict:
    """The ``rmlib_run.yaml`` of a trained RM's folder, checked against its manifest's sha256 (when the folder has
    one) before it is parsed; a changed, undecodable or unparsable run file is a :class:`ModelError` that says so."""
    path = Path(folder) / RUN_FILE
    fix = "restore the folder from a copy, or retrain it with train(..., overwrite=True)"
    raw = path.read_bytes()
    recorded = ((read_manifest(folder) or {}).get("files") or {}).get(RUN_FILE, {}).get("sha256")
    if recorded is not None and sha256_bytes(raw) != recorded:
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged (its sha256 differs from the one "
                         f"recorded when it was exported); {fix}")
    try:
        meta = yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged and cannot be read "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); {fix}") from exc
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged (it holds a {type(meta).__name__}, "
                         f"not a mapping); {fix}")
    base = meta.get("base_model")
    if base is not None and not (isinstance(base, str) and base.strip()):
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged (its base_model is {base!r}, not a "
                         f"model id); {fix}")
    return meta


def get_spec(model_id: str) -> ModelSpec:
    """Registry entry for an id; unknown `owner/name` ids are treated as hub models with safe defaults."""
    if not isinstance(model_id, str) or not model_id.strip():
        raise ModelError(f"a model id is a non-empty string (a registry id, a hub id 'owner/name' or "
                         f"'local:<name>'), not {model_id!r}; `rmlib models` lists them")
    reg = registry()
    if model_id in reg:
        return reg[model_id]
    by_nick = {s.nickname: s for s in reg.values() if s.nickname}
    if model_id in by_nick:
        return by_nick[model_id]
    m = _LOCAL.match(model_id)
    if m:
        path = local_rm_dir(m["name"], int(m["step"]) if m["step"] else None)
        if not (path / "config.json").exists():
            raise ModelError(f"{model_id}: no trained RM at {path} (train one with rmlib.train, or check the name/step)")
        meta = read_run_file(path, model_id) if (path / RUN_FILE).exists() else {}
        base = get_spec(meta["base_model"]) if meta.get("base_model") in reg else None
        # The run hash is the revision: a retrained name must not be served a stale cached sweep.
        # A DPO run exports a causal LM (an implicit RM): it loads with head 'lm' by default
        kind = "lm" if meta.get("objective") == "dpo" else "rm"
        return ModelSpec(id=model_id, kind=kind, source="local", path=str(path), dtype="float32",
                         revision=meta.get("run_hash"),
                         family=base.family if base else "unknown", base=base.base if base else "unknown",
                         chat_template=base.chat_template if base else "own", extra=meta)
    if re.fullmatch(r"[\w.-]+/[\w.-]+", model_id):
        return ModelSpec(id=model_id, kind="rm", source="hub")
    known = ", ".join(sorted(reg))
    raise ModelError(f"unknown model id {model_id!r}. Known ids: {known}; or a hub id 'owner/name'; "
                     "or 'local:<name>[@step<N>]' for an RM trained by rmlib. `rmlib models` lists them.")


def spec_at(model_id: str, revision: str | None) -> ModelSpec:
    """The spec of ``model_id``, pinned to ``revision`` (hub models only)."""
    spec = get_spec(model_id)
    if revision is None:
        return spec
    if spec.source != "hub":
        raise ModelError(f"revision={revision!r}: only hub models have revisions; {model_id} is a {spec.source} model")
    return replace(spec, revision=revision)


def model_info(models: Sequence[str]):
    """One row per model id: model, nickname, family (base family), kind (rm|lm), source, instruct (registry)."""
    import pandas as pd

    rows = []
    for m in as_list(models, "models"):
        s = get_spec(m)
        rows.append({"model": m, "nickname": s.nickname or m, "family": s.base if s.base != "unknown" else s.family,
                     "kind": s.kind, "source": s.source, "instruct": s.instruct})
    return pd.DataFrame(rows)


def reference_lm(model_id: str) -> str | None:
    """The LM whose log-probs the KL regulariser keeps a policy near: the model itself for an LM (its reward *is*
    that log-prob), the recorded base model for an RM trained by rmlib, None when unknown (e.g. a hub RM)."""
    spec = get_spec(model_id)
    if spec.kind == "lm":
        return model_id
    base = spec.extra.get("base_model") if spec.extra else None
    if base:
        try:
            if get_spec(base).kind == "lm":
                return base
        except ValueError:
            return None
    return None


def split_available(models: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """(models that can be loaded here, {model: why not} for RMs trained by rmlib that do not exist yet).

    A ``local:`` RM exists only after rmlib.train made it (the finetuning chapter, in ``make book``), so a chapter
    reports it as missing instead of failing. Every other id is passed through: a typo still fails loudly."""
    ok, missing = [], {}
    for m in as_list(models, "models"):
        if str(m).startswith("local:"):
            try:
                get_spec(m)
            except ModelError as e:
                missing[m] = str(e).removeprefix(f"{m}: ")
                continue
        ok.append(m)
    return ok, missing
