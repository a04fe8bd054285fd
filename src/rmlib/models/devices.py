"""Where and in what precision a model runs: a device that exists here, and the paper's dtype or a CPU-friendly one."""
from __future__ import annotations

import torch

from rmlib.registry import ModelError, ModelSpec

__all__ = ["resolve_device", "resolve_dtype", "DTYPE_BY_NAME", "dtype_name", "place"]


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


def dtype_name(dtype: torch.dtype) -> str:
    """'float32' for torch.float32 (the names LoadOptions and the training config take)."""
    return str(dtype).removeprefix("torch.")


def place(model, device: torch.device):
    """Move a model to ``device`` (unless accelerate already spread it over devices) and switch it to eval mode."""
    if getattr(model, "hf_device_map", None) is None:
        model.to(device)
    return model.eval()
