"""A native head's layout checked against the hub's published tensors before the weights are downloaded.

Why: rmlib implements the heads of ArmoRM, QRM and URM itself (:mod:`rmlib.models.native_rms`). Where their
published code could be read, the layout was copied from it; QRM-Gemma-2-27B's was inferred (the registry says which:
``head_layout: read | inferred``). A layout that differs from the published tensors is refused at load anyway, but
only after the weights (54 GB for the 27B) are downloaded. Here the tensors' names and shapes come from the
safetensors headers alone (``huggingface_hub.get_safetensors_metadata``: a few kilobytes of HTTP range requests), and
are compared with the model rmlib would build on the meta device, by the same rules as the load's own check.
"""
from __future__ import annotations

from rmlib.models.base import ModelError
from rmlib.models.devices import empty_model
from rmlib.registry import ModelSpec

__all__ = ["weights_cached", "published_tensors", "layout_gaps", "name_list", "check_layout_before_download"]


def weights_cached(spec: ModelSpec) -> bool:
    """Whether the hub cache already holds ``spec``'s weights (then the load checks them without downloading)."""
    from huggingface_hub import try_to_load_from_cache

    return any(isinstance(try_to_load_from_cache(spec.id, name, revision=spec.revision), str)
               for name in ("model.safetensors.index.json", "model.safetensors"))


def published_tensors(spec: ModelSpec) -> dict[str, tuple[int, ...]] | None:
    """Name -> shape of every tensor in the hub repo's safetensors files, read from their headers; None when the
    repo has no safetensors (pickles: the load's own rules apply) or the headers cannot be fetched now."""
    from huggingface_hub import get_safetensors_metadata
    from huggingface_hub.errors import NotASafetensorsRepoError

    try:
        meta = get_safetensors_metadata(spec.id, revision=spec.revision)
    except NotASafetensorsRepoError:
        return None
    except OSError:  # the hub answered the probe but not this request: the download would say why
        return None
    return {name: tuple(info.shape) for file in meta.files_metadata.values() for name, info in file.tensors.items()}


def layout_gaps(model, found: dict[str, tuple[int, ...]]) -> dict[str, list[str]]:
    """What keeps ``found`` (name -> shape) from filling ``model`` (a meta-device model): tensors it lacks (except
    those its class marks optional), tensors it does not use, and tensors of another shape."""
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    optional = set(getattr(model, "optional_keys", ()))
    return {"missing": sorted(k for k in expected if k not in found and k not in optional),
            "unexpected": sorted(k for k in found if k not in expected),
            "other shape": sorted(f"{k} {list(found[k])} (rmlib: {list(expected[k])})" for k in expected
                                  if k in found and found[k] != expected[k])}


def name_list(keys, most: int) -> str:
    """The first ``most`` of ``keys``, and how many more: how a refused load names its tensors."""
    keys = list(keys)
    return ", ".join(keys[:most]) + (f" and {len(keys) - most} more" if len(keys) > most else "")


def check_layout_before_download(spec: ModelSpec, native_cls, config) -> None:
    """Refuse ``spec`` before its weights are downloaded when its published tensors do not fit ``native_cls`` built
    from ``config``. Silent when the weights are cached or the headers cannot be read (the load checks then)."""
    if weights_cached(spec):
        return
    found = published_tensors(spec)
    if found is None:
        return
    gaps = {what: keys for what, keys in layout_gaps(empty_model(native_cls, config), found).items() if keys}
    if gaps:
        listed = "; ".join(f"{what}: {name_list(keys, 5)}" for what, keys in gaps.items())
        how = ("read from its published code" if spec.head_layout == "read" else
               "inferred (its published code could not be read)")
        raise ModelError(f"{spec.id}: refused before downloading its weights: the published tensors do not fit "
                         f"rmlib's native {native_cls.__name__}, whose layout was {how} ({listed}). Nothing was "
                         "downloaded but config.json and the safetensors headers")
