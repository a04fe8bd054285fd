"""The model registry and the one way every chapter loads a model.

A hub id, an embedded GGUF, a tiny random model and an RM that rmlib trained all
come back as the same `LoadedModel`, so a notebook written for the embedded
defaults runs unchanged on a GPU with a 27B RM.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import socket
import warnings
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from urllib.parse import urlparse

import torch
import yaml

from . import atomic, config
from .integrity import check_manifest, read_manifest, write_manifest


class ModelError(ValueError):
    pass


class RemoteCodeError(ModelError):
    pass


class HubUnavailableError(ModelError):
    """A hub model that is not in the local cache, while the hub cannot be reached (or HF_HUB_OFFLINE is set)."""


class CacheWarning(UserWarning):
    """A cached file failed its check and is being rebuilt (the message names it)."""


_COMMIT = re.compile(r"^[0-9a-f]{40}$")


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
    """cuda when a GPU is visible, else cpu; an explicit device that is absent here is a clear error."""
    if not device:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ModelError(f"unknown device {device!r}; use cpu, cuda or cuda:N") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ModelError(f"device {device!r} was asked for, but PyTorch sees no CUDA GPU on this machine "
                             "(torch.cuda.is_available() is False). Use --device cpu, or leave --device out: "
                             "rmlib picks cuda when a GPU is present.")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ModelError(f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    elif dev.type == "mps" and not torch.backends.mps.is_available():
        raise ModelError(f"device {device!r}: Apple's MPS backend is not available here; use cpu")
    elif dev.type not in ("cpu", "cuda", "mps"):
        raise ModelError(f"device {device!r} is not supported; use cpu, cuda or cuda:N")
    return dev


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
    seed: int = 0                       # seeds the random weights of tiny models and of an untrained head
    resolved_revision: str | None = None  # what the weights were actually loaded from (see _weights_revision)

    @property
    def revision(self) -> str:
        return self.resolved_revision or self.spec.revision or "main"

    @property
    def max_length(self) -> int | None:
        """The longest sequence (in tokens) the model was built for, or None when it does not say."""
        cfg = self.model.config
        cfg = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
        limits = [getattr(cfg, "max_position_embeddings", None),
                  getattr(self.tokenizer, "model_max_length", None)]
        limits = [int(x) for x in limits if isinstance(x, int) and 0 < x < 10**7]  # tokenizers say 1e30 for "none"
        return min(limits) if limits else None


def _gguf_location(spec: ModelSpec) -> tuple[Path, str]:
    from .embedded import EMBEDDED
    p = EMBEDDED[spec.gguf].path()
    return p.parent, p.name


def _spec_at(model_id: str, revision: str | None) -> ModelSpec:
    spec = get_spec(model_id)
    if revision is None:
        return spec
    if spec.source != "hub":
        raise ModelError(f"revision={revision!r}: only hub models have revisions; {model_id} is a {spec.source} model")
    return replace(spec, revision=revision)


def load_tokenizer(model_id: str, trust_remote_code: bool = False, revision: str | None = None):
    spec = _spec_at(model_id, revision)
    _check_remote_code(spec, trust_remote_code)
    return _tokenizer(spec, trust_remote_code)


def _tokenizer(spec: ModelSpec, trust_remote_code: bool):
    from transformers import AutoTokenizer

    if spec.source == "tiny":
        from .tiny import tiny_tokenizer
        return tiny_tokenizer(spec.family)
    if spec.source == "embedded":
        d, f = _gguf_location(spec)
        return AutoTokenizer.from_pretrained(d, gguf_file=f, trust_remote_code=False)
    if spec.source == "local":
        return AutoTokenizer.from_pretrained(spec.path, trust_remote_code=bool(trust_remote_code))
    with _hub_errors(spec) as hub_kwargs:
        return AutoTokenizer.from_pretrained(spec.id, revision=spec.revision, trust_remote_code=bool(trust_remote_code),
                                             **hub_kwargs)


def _has_own_code(folder: Path) -> bool:
    """A local folder whose config or tokenizer config maps to Python files of its own (auto_map)."""
    for name in ("config.json", "tokenizer_config.json"):
        try:
            if "auto_map" in json.loads((folder / name).read_text()):
                return True
        except (FileNotFoundError, ValueError, TypeError):
            continue
    return False


def _check_remote_code(spec: ModelSpec, trust_remote_code: bool) -> None:
    """The one opt-in for a model's own code, for hub and local models alike; hub code only at a pinned commit.

    transformers is always given an explicit True/False, so it never stops to ask y/N (which hangs a kernel).
    """
    own_code = spec.trust_remote_code or (spec.source == "local" and _has_own_code(Path(spec.path)))
    if own_code and not trust_remote_code:
        where = "the model hub" if spec.source == "hub" else spec.path
        raise RemoteCodeError(
            f"{spec.id} runs its own Python code from {where} (auto_map / its registry entry says trust_remote_code). "
            "rmlib never enables that implicitly. Read the code first, then opt in with "
            "load_model(..., trust_remote_code=True) or `rmlib sweep --trust-remote-code`.")
    if trust_remote_code and spec.source == "hub" and not _COMMIT.match(spec.revision or ""):
        raise RemoteCodeError(
            f"{spec.id}: hub code runs only at a pinned commit, and {spec.id} has none "
            f"(revision {spec.revision or 'main'!r} can change under you). Read the code at one commit on the "
            "model's hub page ('Files and versions' > 'History'), then pin its 40-hex id: "
            "load_model(..., trust_remote_code=True, revision='<commit>') or "
            "`rmlib sweep --trust-remote-code --revision <commit>` (or add `revision:` to its registry entry).")


# ---------------------------------------------------------------- the model hub, offline

def hub_offline() -> bool:
    """HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE, read when called (huggingface_hub reads them once, at import)."""
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on")
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


@functools.cache
def _hub_unreachable(endpoint: str, proxy: str) -> str | None:
    """Why the hub (or the proxy in front of it) cannot be reached, found in at most 3 s; None if it can."""
    url = urlparse(proxy or endpoint)
    host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
    if not host:
        return f"cannot parse {proxy or endpoint!r}"
    try:
        socket.create_connection((host, port), timeout=3).close()
    except OSError as exc:
        return f"{host}:{port}: {exc}"
    return None


def _hub_cache_has(spec: ModelSpec) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
        return isinstance(try_to_load_from_cache(spec.id, "config.json", revision=spec.revision), str)
    except Exception:
        return False


def _how_to_go_offline(spec: ModelSpec) -> str:
    rev = f" --revision {spec.revision}" if spec.revision else ""
    return (f"Download it where there is network (`huggingface-cli download {spec.id}{rev}`) and copy the Hugging "
            "Face cache (HF_HOME) here, or save the model to a folder and use --model local:/path/to/that/folder.")


@contextlib.contextmanager
def _hub_errors(spec: ModelSpec):
    """Yield the from_pretrained kwargs for reaching `spec` on the hub; fail fast and clearly when it cannot be.

    Offline (HF_HUB_OFFLINE) or an unreachable hub: served from the local cache only (no 50 s of retries), and a
    model missing from it is a HubUnavailableError that says how to bring a copy.
    """
    kwargs = {}
    if hub_offline():
        kwargs["local_files_only"] = True
        why = "HF_HUB_OFFLINE is set"
    else:
        endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
        proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy") or ""
        why = _hub_unreachable(endpoint, proxy)
        if why:
            if not _hub_cache_has(spec):
                raise HubUnavailableError(f"{spec.id} is not in the local model cache and the model hub is "
                                          f"unreachable ({why}). {_how_to_go_offline(spec)}")
            kwargs["local_files_only"] = True
            why = f"the hub is unreachable ({why})"
    try:
        yield kwargs
    except OSError as exc:
        if "safetensors" in str(exc).lower() and "pickle" not in str(exc).lower():
            raise
        if kwargs.get("local_files_only"):
            raise HubUnavailableError(f"{spec.id} is not (completely) in the local model cache and {why}: {exc} "
                                      f"{_how_to_go_offline(spec)}") from None
        raise ModelError(f"{spec.id}: {exc}") from None


def load_model(model_id: str, head: str | None = None, dtype: str | None = None, device: str | None = None,
               trust_remote_code: bool = False, allow_untrained_head: bool = False, seed: int = 0,
               revision: str | None = None, allow_pickle: bool = False) -> LoadedModel:
    """Load a model as an RM (`head='rm'`, scalar score) or a causal LM (`head='lm'`).

    An LM given a fresh scalar head is *not* a reward model: that needs
    `allow_untrained_head=True` (tests and speed benchmarks only) and is flagged.

    `revision` pins a hub model to a commit (required with `trust_remote_code=True`). Weights are read from
    safetensors only: pickle files can run code when read, so a model that ships only those needs
    `allow_pickle=True`. Cached files rmlib wrote (de-quantised weights, trained checkpoints) are checked
    against the sha256 recorded when they were written.
    """
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    spec = _spec_at(model_id, revision)
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
    kwargs = {"trust_remote_code": bool(trust_remote_code), "use_safetensors": not allow_pickle}
    if spec.attn_implementation:
        kwargs["attn_implementation"] = spec.attn_implementation
    if spec.source == "local":
        check_checkpoint(spec)
    if spec.source == "local" and spec.extra.get("weights") == "partial":
        if head != "rm":
            raise ModelError(f"{model_id} is a reward model; load its base {spec.extra['base_model']!r} for head='lm'")
        model, tok = _load_partial_rm(spec, tdtype, dev, trust_remote_code)
    elif spec.source == "tiny":
        from .tiny import tiny_model
        model, tok = tiny_model(spec.family, head=head, seed=seed, dtype=tdtype)
    else:
        tok = _tokenizer(spec, trust_remote_code)
        if head == "rm":
            kwargs["num_labels"] = 1
        if spec.source == "embedded":
            torch.manual_seed(seed)
            with _quiet_transformers():  # its "score.weight MISSING" report is expected here: the head is new
                model = cls.from_pretrained(_dequantized_dir(spec, tdtype), dtype=tdtype, **kwargs)
        else:
            with _pickle_refused(spec), \
                    (_hub_errors(spec) if spec.source == "hub" else contextlib.nullcontext({})) as hub_kwargs:
                if spec.source == "hub":
                    kwargs.update(revision=spec.revision, **hub_kwargs)
                    if dev.type == "cuda":
                        kwargs["device_map"] = "auto"
                where = spec.path if spec.source == "local" else spec.id
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
                       chat_template=template, untrained_head=untrained, seed=seed,
                       resolved_revision=_weights_revision(spec, model))


def _weights_revision(spec: ModelSpec, model) -> str:
    """What identifies the weights, for cache keys: the pinned or resolved hub commit, the GGUF's sha256, the sha256
    of a local checkpoint's files, or (tiny models, built in-process) a hash of the weights themselves."""
    if spec.source == "embedded":
        from .embedded import EMBEDDED
        return f"gguf-sha256:{EMBEDDED[spec.gguf].sha256[:16]}"
    if spec.source == "tiny":
        h = hashlib.sha256()
        for name, t in model.state_dict().items():
            h.update(name.encode())
            h.update(t.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
        return f"tiny-weights:{h.hexdigest()[:16]}"
    if spec.source == "hub":
        commit = getattr(model.config, "_commit_hash", None)
        return spec.revision or (commit if isinstance(commit, str) and commit else "main")
    # local: the sha256 of every file as exported (rmlib checkpoints), else the files' names, sizes and mtimes
    folder = Path(spec.path)
    manifest = read_manifest(folder) or {}
    if isinstance(manifest.get("files"), dict):
        listing = {k: v.get("sha256") for k, v in manifest["files"].items()}
        return f"files-sha256:{hashlib.sha256(json.dumps(listing, sort_keys=True).encode()).hexdigest()[:16]}"
    listing = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file())
    return f"files-stat:{hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:16]}"


@contextlib.contextmanager
def _pickle_refused(spec: ModelSpec):
    try:
        yield
    except OSError as exc:
        if "safetensors" not in str(exc).lower():
            raise
        raise ModelError(f"{spec.id} ships no safetensors weights, only pickle files (.bin/.pt), and reading a "
                         "pickle can run code. rmlib reads safetensors only unless you opt in: "
                         "load_model(..., allow_pickle=True) or `rmlib sweep --allow-pickle`, for files you trust. "
                         f"({exc})") from None


def check_checkpoint(spec: ModelSpec, full: bool = True) -> list[str]:
    """Refuse an rmlib-trained checkpoint whose files differ from those it was exported with (sha256 per file).

    Checkpoints exported before rmlib recorded hashes load with a warning; folders that rmlib did not write
    (no rmlib_run.yaml, e.g. a model copied here by hand) cannot be checked and load as they are.
    """
    path = Path(spec.path)
    if not (path / "rmlib_run.yaml").exists():
        return []
    if read_manifest(path) is None:
        warnings.warn(f"{spec.id}: {path} was exported by an older rmlib and has no recorded hashes, so it cannot "
                      "be checked; retrain it (train(..., overwrite=True)) to get them", CacheWarning, stacklevel=3)
        return []
    problems = check_manifest(path, full=full)
    if problems:
        raise ModelError(f"{spec.id}: the checkpoint at {path} is not the one rmlib exported "
                         f"({'; '.join(problems[:3])}). Restore it, or retrain with train(..., overwrite=True).")
    return problems


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
    return (model.to(device=device, dtype=dtype).eval(),
            AutoTokenizer.from_pretrained(path, trust_remote_code=bool(trust_remote_code)))


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

    Each copy is built in a folder of its own and renamed into place with a manifest (the source GGUF's
    sha256, the sha256 of every file), so a kill never leaves half a model, and two processes starting cold
    at once both succeed (a lock makes the second wait for the first's copy; without one, first rename wins).
    Every load checks the copy against its manifest (all bytes, once per process); one that fails is moved
    aside with a warning and rebuilt.
    """
    from .embedded import EMBEDDED
    gg = EMBEDDED[spec.gguf]
    out = dequantized_path(spec, dtype)
    if not dequantized_problems(spec, dtype):
        return out
    with atomic.file_lock(out.parent / f".{out.name}.lock"):
        problems = dequantized_problems(spec, dtype)
        if not problems:
            return out  # another process built it while we waited
        atomic.remove_orphans(out.parent)  # temporary folders of killed builds
        if out.exists():
            moved = atomic.quarantine(out)
            warnings.warn(f"the de-quantised copy {out} failed its check ({'; '.join(problems[:3])}); moved to "
                          f"{moved.name} and rebuilding it", CacheWarning, stacklevel=2)
        _build_dequantized(spec, dtype, out, gg)
    return out


def dequantized_path(spec: ModelSpec, dtype: torch.dtype) -> Path:
    from .embedded import EMBEDDED
    base = config.cache_dir() / "dequantized" / f"{spec.id}-{EMBEDDED[spec.gguf].sha256[:12]}"
    return base if dtype == torch.float32 else base.with_name(f"{base.name}-{str(dtype).removeprefix('torch.')}")


def dequantized_problems(spec: ModelSpec, dtype: torch.dtype, full: bool = True) -> list[str]:
    """Why the cached de-quantised copy cannot be used (empty when it is intact)."""
    from .embedded import EMBEDDED
    out = dequantized_path(spec, dtype)
    if not out.is_dir():
        return ["not built yet"]
    manifest = read_manifest(out) or {}
    if manifest.get("source_sha256") != EMBEDDED[spec.gguf].sha256:
        return ["its manifest does not name the pinned GGUF (built by an older rmlib, or damaged)"]
    return check_manifest(out, full=full)


def _build_dequantized(spec: ModelSpec, dtype: torch.dtype, out: Path, gg) -> None:
    from transformers import AutoModelForCausalLM
    if dtype == torch.float32:
        d, f = _gguf_location(spec)
        lm = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=torch.float32, trust_remote_code=False)
        # The weights are already plain fp32 tensors; drop the GGUF marker so they can be saved.
        lm.hf_quantizer = None
        if hasattr(lm.config, "quantization_config"):
            del lm.config.quantization_config
        source = {"from": gg.filename}
    else:
        fp32 = _dequantized_dir(spec, torch.float32)
        lm = AutoModelForCausalLM.from_pretrained(fp32, dtype=dtype, trust_remote_code=False, use_safetensors=True)
        source = {"from": f"{fp32.name} (fp32 copy) rounded to {dtype}"}
    with atomic.building_dir(out) as built:
        lm.save_pretrained(built.path)
        write_manifest(built.path, source_sha256=gg.sha256, dtype=str(dtype).removeprefix("torch."), **source)
