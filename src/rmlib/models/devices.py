"""Where and in what precision a model runs: a device that exists here, and the paper's dtype or a CPU-friendly one.

On CUDA a model goes whole onto one GPU when it fits there (the one asked for, else the one with the most free
memory), and is split layer by layer over several only when it fits on none (:func:`plan_placement`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import torch

from rmlib.registry import ModelError, ModelSpec

__all__ = ["resolve_device", "resolve_dtype", "cpu_has_bf16_units", "DTYPE_BY_NAME", "dtype_name", "place",
           "Placement", "plan_placement", "gpu_free_bytes", "empty_model", "model_bytes", "device_map_for",
           "heads_with_final_norm", "cuda_device_map", "model_devices", "input_device"]


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


def cpu_has_bf16_units() -> bool:
    """Whether this CPU computes bfloat16 in hardware (AVX512-BF16 or AMX), as torch reports it. Without such units
    torch emulates bf16, and a small forward is several times slower than in float32 (benchmarks/cpu_dtype.py)."""
    probes = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    return any(bool(probe()) for probe in probes if probe is not None)


def resolve_dtype(spec: ModelSpec, device: torch.device, dtype: str | None = None) -> torch.dtype:
    """``auto`` (or None): the paper's dtype on GPU; on a CPU bfloat16 where it has bf16 units
    (:func:`cpu_has_bf16_units`), else float32. Why per CPU: with AMX a sweep ran 2-3x faster in bfloat16 than in
    float32, on a CPU without bf16 units about 5x slower (benchmarks/README.md). The dtype is part of every cache
    key, so the two kinds of machine never serve each other's scores under ``auto``."""
    name = dtype or ("auto")
    if name == "auto":
        if device.type == "cuda":
            name = spec.dtype
        else:
            name = "bfloat16" if device.type == "cpu" and cpu_has_bf16_units() else "float32"
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


# ---- where a model's weights go on CUDA: one GPU when it fits on one, else a sequential split -------------------

GiB = 1024 ** 3


@dataclass(frozen=True)
class Placement:
    """Where a model's weights go: ``devices[0]`` alone, or split in that order (``split``).

    ``devices`` are the GPUs the plan expects the weights to fill, the first one holding the input embeddings (and
    so the inputs). ``budgets`` (device -> bytes, in the order to fill) is what each GPU may take for a split; it
    lists every GPU in that order, so that a layer accelerate rounds over onto the next GPU goes there, not to disk.
    """

    devices: tuple[str, ...]
    model_bytes: int
    budgets: dict[str, int] = field(default_factory=dict)

    @property
    def split(self) -> bool:
        return len(self.devices) > 1

    @property
    def first(self) -> str:
        return self.devices[0]


def _gib(n: float) -> str:
    return f"{n / GiB:.1f} GiB"


def plan_placement(model_bytes: int, free_bytes: Mapping[str, int], requested: str | None = None,
                   headroom: float = 0.2) -> Placement:
    """Decide where a model of ``model_bytes`` of weights goes, from the free bytes of each GPU ("cuda:N" -> bytes).

    ``headroom`` of each GPU's free memory is kept for activations. The whole model goes to one GPU when it fits
    there: the ``requested`` one ("cuda:N"; None or "cuda": no preference), else the GPU with the most free memory.
    Only when it does not fit on that GPU (so, without a request, on none) is it split sequentially, starting there
    and going on over the others from most to least free, as few as hold it. Pure: nothing is read here.
    """
    if not 0 <= headroom < 1:
        raise ValueError(f"headroom is a fraction in [0, 1), not {headroom!r}")
    if not free_bytes:
        raise ModelError("no CUDA GPU to place the model on")
    requested = None if requested in (None, "cuda") else str(torch.device(requested))
    if requested is not None and requested not in free_bytes:
        raise ModelError(f"device {requested!r} is not among the GPUs here ({', '.join(free_bytes)})")
    usable = {d: int(f * (1 - headroom)) for d, f in free_bytes.items()}
    index = {d: i for i, d in enumerate(free_bytes)}
    order = sorted(usable, key=lambda d: (d != requested, -usable[d], index[d]))
    if usable[order[0]] >= model_bytes:
        return Placement((order[0],), model_bytes)
    taken, total = [], 0
    for d in order:
        taken.append(d)
        total += usable[d]
        if total >= model_bytes:
            return Placement(tuple(taken), model_bytes, {d: usable[d] for d in order})
    where = ", ".join(f"{d} {_gib(free_bytes[d])}" for d in order)
    raise ModelError(f"the model needs {_gib(model_bytes)} for its weights, but the GPUs here have {where} free; "
                     f"keeping {headroom:.0%} of each for activations leaves {_gib(total)} for weights in all. Free "
                     "GPU memory, load it in a smaller dtype (bfloat16), or use --device cpu.")


def gpu_free_bytes() -> dict[str, int]:
    """Free bytes of each visible GPU now ("cuda:N" -> bytes), in index order."""
    return {f"cuda:{i}": int(torch.cuda.mem_get_info(i)[0]) for i in range(torch.cuda.device_count())}


def empty_model(model_cls, config, trust_remote_code: bool = False):
    """The model ``model_cls`` (an Auto class or a model class) builds from ``config``, on the meta device (no memory,
    no weights read), tied."""
    from accelerate import init_empty_weights

    with init_empty_weights():
        if hasattr(model_cls, "from_config"):  # AutoModelFor...
            model = model_cls.from_config(config, trust_remote_code=bool(trust_remote_code))
        else:
            model = model_cls(config)
    model.tie_weights()
    return model


def model_bytes(model, dtype: torch.dtype) -> int:
    """Bytes of a model's parameters and buffers once loaded in ``dtype`` (floating tensors take ``dtype``'s size;
    a tensor shared by two modules, e.g. tied embeddings, counts once). Works on a meta-device model."""
    seen, total = set(), 0
    for t in [*model.parameters(), *model.buffers()]:
        if id(t) in seen:
            continue
        seen.add(id(t))
        size = dtype.itemsize if t.is_floating_point() else t.element_size()
        total += t.numel() * size
    return total


def device_map_for(plan: Placement, model, dtype: torch.dtype) -> dict:
    """The ``device_map`` for from_pretrained: ``{"": "cuda:N"}`` for one GPU, or for a split the module -> GPU
    index map accelerate's sequential fill gives over ``plan.budgets`` in their order (``model``: the meta-device
    model). A split that would put weights on the CPU or disk is refused before anything is loaded."""
    if not plan.split:
        return {"": plan.first}
    from accelerate import infer_auto_device_map

    order = list(plan.budgets)  # accelerate fills integer devices in increasing order: number them in ours
    inferred = infer_auto_device_map(model, max_memory={i: plan.budgets[d] for i, d in enumerate(order)},
                                     no_split_module_classes=list(getattr(model, "_no_split_modules", None) or []),
                                     dtype=dtype)
    off = sorted({str(v) for v in inferred.values() if not isinstance(v, int)})
    if off:
        raise ModelError(f"the model ({_gib(plan.model_bytes)}) does not fit on the GPUs "
                         f"{', '.join(order)} once split by layer: accelerate would put part of it on {off}. "
                         "Free GPU memory, or load it in a smaller dtype.")
    return {name: torch.device(order[v]).index for name, v in heads_with_final_norm(inferred, model).items()}


def heads_with_final_norm(dmap: dict, model) -> dict:
    """``dmap`` with every module and tensor outside the backbone, the reward head (``score``, or ArmoRM's and
    QRM's ``regression_layer``, ``gating`` and root-level ``reward_transform_matrix``, URM's ``score`` and
    ``weights``), on the device of the backbone's final norm, whose output it reads. Why: accelerate fills devices in
    module order and places a root-level tensor on the first device, so a split RM's head would multiply tensors on
    two GPUs. A causal LM's ``lm_head`` is left where accelerate put it (it may be tied to the embeddings)."""
    prefix = getattr(model, "base_model_prefix", "")
    inside = [k for k in dmap if k == prefix or k.startswith(prefix + ".")]
    if not prefix or not inside:
        return dict(dmap)
    names = {n for n, _ in model.named_modules()}
    norm = f"{prefix}.norm" if f"{prefix}.norm" in names else inside[-1]
    at = dmap[max((k for k in inside if norm == k or norm.startswith(k + ".")), key=len, default=inside[-1])]
    return {k: v if k in inside or k.split(".")[0] == "lm_head" else at for k, v in dmap.items()}


def cuda_device_map(where: str, model_cls, device: torch.device, dtype: torch.dtype,
                    load_kwargs: dict, headroom: float = 0.2) -> tuple[dict, torch.device]:
    """(device_map for from_pretrained, the device of the input embeddings) for loading ``where`` on CUDA:
    its size from its config (no weights read), the GPUs' free memory now, and :func:`plan_placement`."""
    from transformers import AutoConfig

    cfg_kwargs = {k: load_kwargs[k] for k in ("trust_remote_code", "revision", "local_files_only") if k in load_kwargs}
    meta = empty_model(model_cls, AutoConfig.from_pretrained(where, **cfg_kwargs),
                       cfg_kwargs.get("trust_remote_code", False))
    try:
        plan = plan_placement(model_bytes(meta, dtype), gpu_free_bytes(),
                              str(device) if device.index is not None else None, headroom)
        return device_map_for(plan, meta, dtype), torch.device(plan.first)
    except ModelError as exc:
        raise ModelError(f"{where} in {dtype_name(dtype)}: {exc}") from None


def model_devices(model) -> list[torch.device]:
    """The devices a loaded model spans, in the order of its device map (accelerate's ``hf_device_map``; ints
    are CUDA indices, "disk" is left out), else of its parameters and buffers."""
    found: list[torch.device] = []
    dmap = getattr(model, "hf_device_map", None)
    values = list(dmap.values()) if dmap else [t.device for t in [*model.parameters(), *model.buffers()]]
    for v in values:
        if v == "disk":
            continue
        d = torch.device("cuda", v) if isinstance(v, int) else torch.device(v)
        if d not in found:
            found.append(d)
    return found


def input_device(model, default: torch.device) -> torch.device:
    """Where the model's input embeddings live (where its input ids must go), else ``default``."""
    try:
        weight = model.get_input_embeddings().weight
    except (AttributeError, NotImplementedError):
        return default
    return default if weight.device.type == "meta" else weight.device
