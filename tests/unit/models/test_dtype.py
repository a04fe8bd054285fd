"""rmlib.models.devices.resolve_dtype: ``auto`` on a CPU is bfloat16 only where the CPU has bf16 units.

On a CPU without them torch emulates bf16 and a small forward ran about 5x slower than in float32; with AMX a sweep
ran 2-3x faster in bf16 (benchmarks/README.md, benchmarks/cpu_dtype.py)."""
from __future__ import annotations

import pytest
import torch

from rmlib.models import devices
from rmlib.registry import get_spec


@pytest.mark.parametrize("units, expected", [(True, torch.bfloat16), (False, torch.float32)])
def test_auto_on_a_cpu_follows_its_bf16_units(monkeypatch, units, expected):
    monkeypatch.setattr(devices, "cpu_has_bf16_units", lambda: units)
    spec = get_spec("Ray2333/GRM-Llama3-8B-rewardmodel-ft")  # float16 on GPU, as the paper ran it
    cpu = torch.device("cpu")
    assert devices.resolve_dtype(spec, cpu) == devices.resolve_dtype(spec, cpu, "auto") == expected
    assert devices.resolve_dtype(spec, cpu, "bfloat16") == torch.bfloat16  # asked for: always given
    assert devices.resolve_dtype(spec, cpu, "float32") == torch.float32
    assert devices.resolve_dtype(spec, torch.device("cuda")) == torch.float16  # GPUs: the paper's dtype


def test_the_probe_reads_torchs_own_cpu_capabilities(monkeypatch):
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    assert devices.cpu_has_bf16_units() is False
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    assert devices.cpu_has_bf16_units() is True
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported")
    monkeypatch.delattr(torch.cpu, "_is_avx512_bf16_supported")
    assert devices.cpu_has_bf16_units() is False  # a torch that cannot tell: float32, the safe choice


def test_the_no_load_index_keys_the_cpus_auto_precision(monkeypatch):
    """A cache shared by a CPU with bf16 units and one without must not serve one's ``auto`` sweep to the other;
    where auto is still bfloat16 the key is the one written before (cached sweeps stay found)."""
    from rmlib.engine import sweep_index
    from rmlib.models import LoadOptions

    qrm, prompt = "nicolinho/QRM-Llama3.1-8B", "What, in one word, is the greatest thing ever?"
    monkeypatch.setattr(devices, "cpu_has_bf16_units", lambda: True)
    with_units = sweep_index.request_key(qrm, prompt, None, None)
    monkeypatch.setattr(devices, "cpu_has_bf16_units", lambda: False)
    without = sweep_index.request_key(qrm, prompt, None, None)
    asked = sweep_index.request_key(qrm, prompt, None, LoadOptions.of(dtype="bfloat16"))
    assert None not in (with_units, without) and with_units != without
    monkeypatch.setattr(devices, "cpu_has_bf16_units", lambda: True)
    assert sweep_index.request_key(qrm, prompt, None, LoadOptions.of(dtype="bfloat16")) == asked  # explicit: never keyed by CPU
