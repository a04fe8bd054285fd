"""The model registry and the one way every chapter loads a model.

A hub id, an embedded GGUF, a tiny random model and an RM that rmlib trained all
come back as the same `LoadedModel`, so a notebook written for the embedded
defaults runs unchanged on a GPU with a 27B RM.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

import torch
import yaml

from . import config


class ModelError(ValueError):
    pass


class RemoteCodeError(ModelError):
    pass


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
    score: str = "logits0"
    trust_remote_code: bool = False
    attn_implementation: str | None = None
    chat_template: str = "own"
    instruct: bool | None = None
    reward_bench_rank: int | None = None
    gguf: str | None = None
    upstream: str | None = None
    path: str | None = None
    extra: dict = field(default_factory=dict)


@functools.cache
def registry() -> dict[str, ModelSpec]:
    raw = yaml.safe_load(resources.files("rmlib").joinpath("registry.yaml").read_text())
    specs = {}
    for section, kind, source in (("paper_rms", "rm", "hub"), ("embedded", "lm", "embedded"), ("tiny", "lm", "tiny")):
        for mid, fields in raw[section].items():
            specs[mid] = ModelSpec(id=mid, kind=kind, source=source, **fields)
    return specs


def paper_rms():
    """The 10 RMs of the two papers, as a DataFrame (id, nickname, family, base, developer, size_b, ...)."""
    import pandas as pd
    rows = [s.__dict__ for s in registry().values() if s.source == "hub" and s.kind == "rm"]
    return pd.DataFrame(rows).drop(columns=["extra", "gguf", "path", "upstream"])


_LOCAL = re.compile(r"^local:(?P<name>[^@]+)(@step(?P<step>\d+))?$")


def local_rm_dir(name: str, step: int | None = None) -> Path:
    """Where rmlib's training writes an RM: cache/rms/<name>[/step-<n>]."""
    base = Path(name) if Path(name).is_absolute() else config.cache_dir() / "rms" / name
    return base / f"step-{step}" if step is not None else base


def get_spec(model_id: str) -> ModelSpec:
    """Registry entry for an id; unknown `owner/name` ids are treated as hub models with safe defaults."""
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
        meta = {}
        if (path / "rmlib_run.yaml").exists():
            meta = yaml.safe_load((path / "rmlib_run.yaml").read_text()) or {}
        base = get_spec(meta["base_model"]) if meta.get("base_model") in reg else None
        # The run hash is the revision: a retrained name must not be served a stale cached sweep.
        return ModelSpec(id=model_id, kind="rm", source="local", path=str(path), dtype="float32",
                         revision=meta.get("run_hash"),
                         family=base.family if base else "unknown", base=base.base if base else "unknown",
                         chat_template=base.chat_template if base else "own", extra=meta)
    if re.fullmatch(r"[\w.-]+/[\w.-]+", model_id):
        return ModelSpec(id=model_id, kind="rm", source="hub")
    known = ", ".join(sorted(reg))
    raise ModelError(f"unknown model id {model_id!r}. Known ids: {known}; or a hub id 'owner/name'; "
                     "or 'local:<name>[@step<N>]' for an RM trained by rmlib. `rmlib models` lists them.")


def resolve_device(device: str | None = None) -> torch.device:
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


DTYPE_BY_NAME = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def resolve_dtype(spec: ModelSpec, device: torch.device, dtype: str | None = None) -> torch.dtype:
    """The paper's dtype on GPU; on CPU bfloat16 (fast with AVX512-BF16) unless float32 is asked for."""
    name = dtype or ("auto")
    if name == "auto":
        name = spec.dtype if device.type == "cuda" else "bfloat16"
        if device.type == "cpu" and name == "float16":
            name = "bfloat16"
    try:
        return DTYPE_BY_NAME[name]
    except KeyError:
        raise ModelError(f"unknown dtype {name!r}; use float32, bfloat16, float16 or auto") from None


@dataclass
class LoadedModel:
    spec: ModelSpec
    model: torch.nn.Module
    tokenizer: object
    head: str
    device: torch.device
    dtype: torch.dtype
    chat_template: str
    untrained_head: bool = False

    @property
    def revision(self) -> str:
        return self.spec.revision or "main"


def _gguf_location(spec: ModelSpec) -> tuple[Path, str]:
    from .embedded import EMBEDDED
    p = EMBEDDED[spec.gguf].path()
    return p.parent, p.name


def load_tokenizer(model_id: str, trust_remote_code: bool = False):
    from transformers import AutoTokenizer

    spec = get_spec(model_id)
    _check_remote_code(spec, trust_remote_code)
    if spec.source == "tiny":
        from .tiny import tiny_tokenizer
        return tiny_tokenizer(spec.family)
    if spec.source == "embedded":
        d, f = _gguf_location(spec)
        return AutoTokenizer.from_pretrained(d, gguf_file=f)
    if spec.source == "local":
        return AutoTokenizer.from_pretrained(spec.path)
    return AutoTokenizer.from_pretrained(spec.id, revision=spec.revision, trust_remote_code=trust_remote_code)


def _check_remote_code(spec: ModelSpec, trust_remote_code: bool) -> None:
    if spec.trust_remote_code and not trust_remote_code:
        raise RemoteCodeError(
            f"{spec.id} runs its own Python code from the model hub (its registry entry says trust_remote_code). "
            "rmlib never enables that implicitly. Read the code first, then opt in with "
            "load_model(..., trust_remote_code=True) or `rmlib sweep --trust-remote-code`.")


def load_model(model_id: str, head: str | None = None, dtype: str | None = None, device: str | None = None,
               trust_remote_code: bool = False, allow_untrained_head: bool = False, seed: int = 0) -> LoadedModel:
    """Load a model as an RM (`head='rm'`, scalar score) or a causal LM (`head='lm'`).

    An LM given a fresh scalar head is *not* a reward model: that needs
    `allow_untrained_head=True` (tests and speed benchmarks only) and is flagged.
    """
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    spec = get_spec(model_id)
    head = head or spec.kind
    if head not in ("rm", "lm"):
        raise ModelError(f"head must be 'rm' or 'lm', not {head!r}")
    _check_remote_code(spec, trust_remote_code)
    untrained = head == "rm" and spec.kind == "lm"
    if untrained and not allow_untrained_head:
        raise ModelError(f"{model_id} is a language model, not a reward model; a scalar head on it would be random. "
                         "Sweep it with head='lm' (log-probs), train an RM from it with rmlib.train, "
                         "or pass allow_untrained_head=True for speed tests only.")
    dev = resolve_device(device)
    tdtype = resolve_dtype(spec, dev, dtype)
    cls = AutoModelForSequenceClassification if head == "rm" else AutoModelForCausalLM
    kwargs = {}
    if spec.attn_implementation:
        kwargs["attn_implementation"] = spec.attn_implementation
    if spec.source == "local" and spec.extra.get("weights") == "partial":
        if head != "rm":
            raise ModelError(f"{model_id} is a reward model; load its base {spec.extra['base_model']!r} for head='lm'")
        model, tok = _load_partial_rm(spec, tdtype, dev, trust_remote_code)
    elif spec.source == "tiny":
        from .tiny import tiny_model
        model, tok = tiny_model(spec.family, head=head, seed=seed, dtype=tdtype)
    else:
        tok = load_tokenizer(model_id, trust_remote_code=trust_remote_code)
        if head == "rm":
            kwargs["num_labels"] = 1
        if spec.source == "embedded":
            torch.manual_seed(seed)
            with _quiet_transformers():  # its "score.weight MISSING" report is expected here: the head is new
                model = cls.from_pretrained(_dequantized_dir(spec, tdtype), dtype=tdtype, **kwargs)
        else:
            where = spec.path if spec.source == "local" else spec.id
            if spec.source == "hub":
                kwargs.update(revision=spec.revision, trust_remote_code=trust_remote_code)
                if dev.type == "cuda":
                    kwargs["device_map"] = "auto"
            model, info = cls.from_pretrained(where, dtype=tdtype, output_loading_info=True, **kwargs)
            fresh = [k for k in info.get("missing_keys", []) if k.split(".")[0] in ("score", "classifier", "v_head")]
            if head == "rm" and fresh:
                untrained = True
                if not allow_untrained_head:
                    raise ModelError(f"{model_id} has no trained reward head ({', '.join(sorted(fresh))} would be "
                                     "random): it is probably a language model. Load it with head='lm', or pass "
                                     "allow_untrained_head=True for speed tests only.")
        if getattr(model, "hf_device_map", None) is None:
            model.to(dev)
        model.eval()
    if head == "rm" and tok.pad_token_id is not None and model.config.pad_token_id is None:
        model.config.pad_token_id = tok.pad_token_id
    from .templates import chat_template_of
    template = chat_template_of(tok, None if spec.chat_template == "own" else spec.chat_template)
    return LoadedModel(spec=spec, model=model, tokenizer=tok, head=head, device=dev, dtype=tdtype,
                       chat_template=template, untrained_head=untrained)


PARTIAL_WEIGHTS = "trained.safetensors"


def frozen_weights_sha256(model, exclude: set[str], dtype: torch.dtype) -> str:
    """sha256 over the names and `dtype` bytes of the parameters not in `exclude` (the frozen part of an RM)."""
    h = hashlib.sha256()
    for name, p in model.named_parameters():
        if name in exclude:
            continue
        h.update(name.encode())
        h.update(p.detach().to("cpu", dtype).contiguous().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _load_partial_rm(spec: ModelSpec, dtype: torch.dtype, device: torch.device, trust_remote_code: bool):
    """A last_n checkpoint: the base's weights with the trained tensors laid over them, checked by fingerprint."""
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    meta, path = spec.extra, Path(spec.path)
    base_spec = get_spec(meta["base_model"])
    save_dtype = DTYPE_BY_NAME[meta.get("save_dtype", "bfloat16")]
    # Tiny bases are seeded random draws made in float32 at training time. Others load directly in the asked dtype
    # when rounding it to save_dtype gives the fingerprinted bytes (float32, or save_dtype itself), else in float32.
    base_dtype = dtype if base_spec.source != "tiny" and dtype in (torch.float32, save_dtype) else torch.float32
    base = load_model(meta["base_model"], head="rm", dtype=str(base_dtype).removeprefix("torch."), device="cpu",
                      trust_remote_code=trust_remote_code, allow_untrained_head=True, seed=meta.get("seed", 0))
    model = base.model
    trained = load_file(str(path / PARTIAL_WEIGHTS))
    params = dict(model.named_parameters())
    unknown = sorted(set(trained) - set(params))
    if unknown or not any(k.startswith(("score.", "classifier.")) for k in trained):
        raise ModelError(f"{spec.id}: {path / PARTIAL_WEIGHTS} does not fit {meta['base_model']} "
                         f"(unknown tensors {unknown[:3]}, or no reward head); retrain the run")
    got = frozen_weights_sha256(model, set(trained), save_dtype)
    if got != meta.get("frozen_sha256"):
        raise ModelError(f"{spec.id}: the base {meta['base_model']!r} no longer gives the weights this checkpoint was "
                         f"trained on (frozen-weights sha256 {got[:12]} vs {str(meta.get('frozen_sha256'))[:12]}). "
                         "Restore that base version or retrain the run.")
    with torch.no_grad():
        for name, t in trained.items():
            params[name].copy_(t.to(params[name].dtype))
    return model.to(device=device, dtype=dtype).eval(), AutoTokenizer.from_pretrained(path)


@contextlib.contextmanager
def _quiet_transformers():
    from transformers.utils import logging as hf_logging
    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(before)


def _dequantized_dir(spec: ModelSpec, dtype: torch.dtype = torch.float32) -> Path:
    """De-quantising a GGUF takes ~10-60 s; do it once and keep safetensors in the cache.

    The fp32 copy is exact. A copy per narrower dtype (the same values, rounded once) lets a bf16 load
    skip the transient fp32 tensors, which would otherwise add ~4 bytes per parameter to peak memory.
    """
    from transformers import AutoModelForCausalLM
    from .embedded import EMBEDDED
    gg = EMBEDDED[spec.gguf]
    base = config.cache_dir() / "dequantized" / f"{spec.id}-{gg.sha256[:12]}"
    out = base if dtype == torch.float32 else base.with_name(f"{base.name}-{str(dtype).removeprefix('torch.')}")
    if (out / "config.json").exists():
        return out
    if dtype == torch.float32:
        d, f = _gguf_location(spec)
        lm = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=torch.float32)
        # The weights are already plain fp32 tensors; drop the GGUF marker so they can be saved.
        lm.hf_quantizer = None
        if hasattr(lm.config, "quantization_config"):
            del lm.config.quantization_config
    else:
        lm = AutoModelForCausalLM.from_pretrained(_dequantized_dir(spec, torch.float32), dtype=dtype)
    tmp = out.with_name(out.name + ".tmp")
    lm.save_pretrained(tmp)
    tmp.replace(out)
    return out
