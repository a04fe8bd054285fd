"""Every model a chapter can name, and what is known about it, without loading anything (no torch).

The registry (``registry.yaml``) lists the 10 RMs of the two papers, the embedded GGUF language models and the tiny
random models; a hub id ``owner/name`` and ``local:<name>[@step<N>]`` (an RM that rmlib trained, found through
:mod:`rmlib.trained`, which knows the export's files) resolve too. It sits
below the data layer because the published scores are organised by paper RM, and below the model loaders, which
read a :class:`ModelSpec` to know how to build a model (:mod:`rmlib.models`).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Sequence

import yaml

from rmlib.errors import ModelError, as_list
from rmlib.trained import local_run

__all__ = ["ModelError", "ModelSpec", "registry", "paper_rms", "embedded_lms", "get_spec", "spec_at", "model_info",
           "reference_lm", "split_available"]

@dataclass(frozen=True)
class ModelSpec:
    id: str
    kind: str                 # rm | lm
    source: str               # hub | embedded | tiny | local
    family: str = "unknown"
    base: str = "unknown"
    lineage: str | None = None  # the pretraining lineage (registry.yaml says how it is decided); None: none known
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
    local = local_run(model_id)
    if local is not None:
        path, meta = local
        base = get_spec(meta["base_model"]) if meta.get("base_model") in reg else None
        # The run hash is the revision: a retrained name must not be served a stale cached sweep.
        # A DPO run exports a causal LM (an implicit RM): it loads with head 'lm' by default
        kind = "lm" if meta.get("objective") == "dpo" else "rm"
        return ModelSpec(id=model_id, kind=kind, source="local", path=str(path), dtype="float32",
                         revision=meta.get("run_hash"),
                         family=base.family if base else "unknown", base=base.base if base else "unknown",
                         lineage=base.lineage if base else None, chat_template=base.chat_template if base else "own", extra=meta)
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
    """One row per model id: model, nickname, family (the registry's ``base``: what the chapters group by), lineage
    (the pretraining lineage, None where unknown), kind (rm|lm), source, instruct (registry)."""
    import pandas as pd

    rows = []
    for m in as_list(models, "models"):
        s = get_spec(m)
        rows.append({"model": m, "nickname": s.nickname or m, "family": s.base if s.base != "unknown" else s.family,
                     "lineage": s.lineage, "kind": s.kind, "source": s.source, "instruct": s.instruct})
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
