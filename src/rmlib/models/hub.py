"""Models from the Hugging Face hub (the paper RMs on a GPU), and how a load fails fast and clearly offline.

HF_HUB_OFFLINE, or a hub that cannot be reached within 3 s, serves models from the local cache only (no 50 s of
retries), and a model missing from it is a :class:`HubUnavailableError` that says how to bring a copy. The weights
are identified by the pinned or resolved commit. ``from_pretrained_checked`` is shared with rmlib-trained
checkpoints saved as whole models (:mod:`rmlib.models.local`).
"""
from __future__ import annotations

import contextlib
import functools
import os
import socket
from pathlib import Path
from urllib.parse import urlparse

from rmlib.models.base import HubUnavailableError, LoadOptions, ModelError, Source
from rmlib.models.devices import cuda_device_map, place
from rmlib.models.files import unreadable_weights
from rmlib.models.layout import check_layout_before_download, name_list, published_tensors
from rmlib.models.native_rms import check_loading_info
from rmlib.models.native_rms import native_class
from rmlib.models.policy import pickle_refused
from rmlib.registry import ModelSpec

__all__ = ["hub_offline", "hub_errors", "model_class", "pretrained_kwargs", "from_pretrained_checked", "weights_fit",
           "SOURCE"]

REWARD_HEADS = ("score", "classifier", "v_head")  # tensors a reward model has and a language model lacks


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
def hub_errors(spec: ModelSpec):
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


def model_class(head: str):
    """transformers' Auto class for a reward model (scalar head) or a causal LM."""
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    return AutoModelForSequenceClassification if head == "rm" else AutoModelForCausalLM


def pretrained_kwargs(spec: ModelSpec, head: str, options: LoadOptions) -> dict:
    """The from_pretrained arguments every saved model gets: remote code and pickles only when allowed, the
    registry's attention kernel, and one label for a reward head. ``allow_pickle`` only permits a pickle for a model
    that ships nothing else: safetensors are still preferred whenever they exist (use_safetensors=None makes
    transformers take them first, and fall back to a .bin only when there are none)."""
    kwargs = {"trust_remote_code": bool(options.trust_remote_code),
              "use_safetensors": None if options.allow_pickle else True}
    if spec.attn_implementation:
        kwargs["attn_implementation"] = spec.attn_implementation
    if head == "rm":
        kwargs["num_labels"] = 1
    return kwargs


def from_pretrained_checked(where: str, spec: ModelSpec, head: str, options: LoadOptions, device, dtype):
    """Load saved weights (a hub id or a folder); returns (model, names of reward-head tensors the weights lacked)."""
    kwargs = pretrained_kwargs(spec, head, options)
    folder = None if spec.source == "hub" else Path(where)
    reach = hub_errors(spec) if spec.source == "hub" else contextlib.nullcontext({})
    with unreadable_weights(f"{spec.id} ({where})", folder), pickle_refused(spec), reach as hub_kw:
        if spec.source == "hub":
            kwargs.update(revision=spec.revision, **hub_kw)
            if hub_kw.get("local_files_only"):  # transformers does not pass it on to its adapter lookup, which
                kwargs["adapter_kwargs"] = {"local_files_only": True}  # would retry the hub for 23 s per load
        cls = model_class(head)
        native, config = native_model_class(where, head, options, kwargs)
        if native is not None and spec.source == "hub" and not kwargs.get("local_files_only"):
            check_layout_before_download(spec, native, config)  # the headers, before gigabytes of weights
        if native is not None:  # rmlib's own head for this architecture: no remote code, no label override
            cls, kwargs = native, {k: v for k, v in kwargs.items() if k not in ("num_labels", "trust_remote_code")}
        if device.type == "cuda":  # whole onto one GPU when it fits there, else split in order (plan_placement)
            kwargs["device_map"], device = cuda_device_map(where, cls, device, dtype, kwargs)
        try:
            model, info = cls.from_pretrained(where, dtype=dtype, output_loading_info=True, **kwargs)
        except RuntimeError as exc:
            if "mismatched_sizes" not in str(exc):
                raise
            if head == "rm" and native is None and (wide := _wide_head(spec, folder)) is not None:
                name, shape = wide
                raise ModelError(f"{spec.id} ({where}): its reward head {name} has shape {shape}: {shape[0]} "
                                 "outputs, where rmlib reads one reward (it loads a classification head with "
                                 "num_labels=1), so it is not a single-score RM. Load it with head='lm' to sweep "
                                 "its language model, or score one output with a reader that knows the head "
                                 "(rmlib.models.reward_heads)") from None
            what = f"rmlib's native {native.__name__}" if native is not None else f"its config ({cls.__name__})"
            raise ModelError(f"{spec.id} ({where}): the weights do not fit {what}: a tensor has another shape than "
                             "this config gives it, so this checkpoint's layout differs from its config's") from None
    if native is not None:  # the native heads' own check, which knows their optional tensors
        check_loading_info(model, info, f"{spec.id} ({where})")
        return place(model, device), []
    return place(model, device), weights_fit(info, head, f"{spec.id} ({where})")


def _wide_head(spec: ModelSpec, folder: Path | None) -> tuple[str, tuple[int, ...]] | None:
    """(name, shape) of a reward-head weight with more than one output row, read from the safetensors headers (a
    local folder's files; a hub model's published headers), or None: a head of several outputs (#62: "the weights
    do not fit its config", though the config was right and rmlib had asked for one label)."""
    shapes = {}
    if folder is not None:
        from safetensors import safe_open

        for path in sorted(folder.glob("*.safetensors")):
            try:
                with safe_open(str(path), framework="pt") as f:
                    shapes |= {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()
                               if k.split(".")[0] in REWARD_HEADS}
            except Exception:  # an unreadable file: the load's own message names it
                continue
    elif spec.source == "hub" and not hub_offline():
        with contextlib.suppress(Exception):
            shapes = {k: v for k, v in (published_tensors(spec) or {}).items() if k.split(".")[0] in REWARD_HEADS}
    return next(((k, v) for k, v in sorted(shapes.items()) if k.endswith(".weight") and len(v) == 2 and v[0] > 1),
                None)


def weights_fit(info: dict, head: str, where: str) -> list[str]:
    """The reward-head tensors a load lacked (a new head fills them, and only with ``allow_untrained_head``), after
    refusing every other gap between the weights and the model: transformers fills a missing tensor with random
    values and drops an unexpected one with no more than a log line, so the model would score with weights it does
    not have (a checkpoint missing a decoder tensor; Qwen2's q/k/v biases under a Llama config).

    Two gaps are the head swap the caller asked for, not damage: an LM's ``lm_head`` left unread when it is loaded
    with a reward head (head='rm'), and an RM's reward head left unread when it is loaded as a causal LM
    (head='lm'); neither tensor takes part in the scores asked for. ``info``: from_pretrained's loading info."""
    missing = sorted(info.get("missing_keys", []))
    fresh = [k for k in missing if k.split(".")[0] in REWARD_HEADS]
    swapped = ("lm_head",) if head == "rm" else REWARD_HEADS
    unexpected = sorted(k for k in info.get("unexpected_keys", []) if k.split(".")[0] not in swapped)
    mismatched = sorted(str(k[0] if isinstance(k, (tuple, list)) else k) for k in info.get("mismatched_keys", []))
    lost = [k for k in missing if k not in fresh]
    if lost or unexpected or mismatched:
        found = [f"{what}: {name_list(keys, 6)}" for what, keys in (("missing (they would be random)", lost),
                                                               ("unexpected (they would be dropped)", unexpected),
                                                               ("of another shape", mismatched)) if keys]
        raise ModelError(f"{where}: the weights do not fit the model its config describes; tensors "
                         f"{'; '.join(found)}. Scores from it would not be this checkpoint's: check that the folder "
                         "holds every weight file and that config.json names the architecture it was trained as")
    return fresh


def native_model_class(where: str, head: str, options: LoadOptions, kwargs: dict):
    """(rmlib's native class (:mod:`rmlib.models.native_rms`) for the config at ``where``, or None; that config).
    The config is read with remote code off: these configs name their own code in ``auto_map`` only for the model
    class."""
    if head != "rm":
        return None, None
    from transformers import AutoConfig

    keep = {k: kwargs[k] for k in ("revision", "local_files_only") if k in kwargs}
    config = AutoConfig.from_pretrained(where, trust_remote_code=bool(options.trust_remote_code), **keep)
    return native_class(config), config


def _tokenizer(spec: ModelSpec, trust_remote_code: bool):
    from transformers import AutoTokenizer

    with hub_errors(spec) as hub_kwargs:
        return AutoTokenizer.from_pretrained(spec.id, revision=spec.revision, trust_remote_code=bool(trust_remote_code),
                                             **hub_kwargs)


def _load(spec: ModelSpec, head: str, options: LoadOptions, device, dtype):
    tok = _tokenizer(spec, options.trust_remote_code)
    model, fresh = from_pretrained_checked(spec.id, spec, head, options, device, dtype)
    return model, tok, fresh


def _revision(spec: ModelSpec, model) -> str:
    commit = getattr(model.config, "_commit_hash", None)
    return spec.revision or (commit if isinstance(commit, str) and commit else "main")


SOURCE = Source(tokenizer=_tokenizer, load=_load, revision=_revision)
