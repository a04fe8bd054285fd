"""rmlib.models.devices placement: a model goes whole onto one GPU when it fits (the asked-for one, else the one with
the most free memory), is split in order only when it fits on none, and is refused with the numbers when it fits
nowhere; the automatic batch is sized by the tightest GPU the model spans. Free memory is faked: no GPU is needed."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from transformers import (AutoModelForCausalLM, AutoModelForSequenceClassification, LlamaForCausalLM,
                          LlamaForSequenceClassification)

from rmlib.engine.checks import auto_batch_size, batch_size_for_free
from rmlib.models import ModelError, load_model
from rmlib.models import devices
from rmlib.models.devices import (GiB, Placement, device_map_for, empty_model, input_device, model_bytes, model_devices,
                                  plan_placement)
from rmlib.models.tiny import tiny_model

FREE = {"cuda:0": 20 * GiB, "cuda:1": 40 * GiB, "cuda:2": 30 * GiB}  # usable at headroom 0.2: 16, 32, 24 GiB


# --------------------------------------------------------------------------- the pure decision

def test_a_model_that_fits_goes_whole_onto_the_requested_gpu_even_when_another_has_more_room():
    plan = plan_placement(10 * GiB, FREE, requested="cuda:2")
    assert plan.devices == ("cuda:2",) and not plan.split and plan.first == "cuda:2"
    assert plan_placement(10 * GiB, FREE, requested="cuda:0").devices == ("cuda:0",)


def test_without_a_request_the_gpu_with_the_most_free_memory_is_chosen():
    assert plan_placement(10 * GiB, FREE).devices == ("cuda:1",)
    assert plan_placement(10 * GiB, FREE, requested="cuda").devices == ("cuda:1",)  # "cuda" names no GPU
    tie = {"cuda:0": 8 * GiB, "cuda:1": 8 * GiB}
    assert plan_placement(1 * GiB, tie).devices == ("cuda:0",)  # ties: the lower index


def test_headroom_is_kept_free_for_activations():
    one = {"cuda:0": 10 * GiB}
    assert not plan_placement(8 * GiB, one, headroom=0.2).split
    with pytest.raises(ModelError):
        plan_placement(8 * GiB + 1, one, headroom=0.2)
    assert not plan_placement(9 * GiB, one, headroom=0.1).split
    with pytest.raises(ValueError, match="headroom"):
        plan_placement(1, one, headroom=1.0)


def test_a_model_is_split_only_when_it_fits_on_no_single_gpu():
    assert not plan_placement(32 * GiB, FREE).split  # fits on cuda:1 (32 GiB usable)
    plan = plan_placement(40 * GiB, FREE)
    assert plan.split and plan.devices == ("cuda:1", "cuda:2")  # most free first, as few GPUs as hold it
    assert list(plan.budgets) == ["cuda:1", "cuda:2", "cuda:0"]  # every GPU, in fill order, so nothing spills to disk
    assert plan.budgets["cuda:1"] == int(40 * GiB * 0.8)
    assert plan_placement(60 * GiB, FREE).devices == ("cuda:1", "cuda:2", "cuda:0")


def test_a_split_starts_at_the_requested_gpu():
    plan = plan_placement(20 * GiB, FREE, requested="cuda:0")  # 16 GiB usable there: too small alone
    assert plan.devices == ("cuda:0", "cuda:1")
    assert list(plan.budgets)[0] == "cuda:0"


def test_a_model_that_fits_nowhere_is_refused_with_what_it_needs_and_what_is_free():
    with pytest.raises(ModelError) as err:
        plan_placement(100 * GiB, FREE)
    msg = str(err.value)
    assert "100.0 GiB" in msg and "cuda:0 20.0 GiB" in msg and "cuda:1 40.0 GiB" in msg and "72.0 GiB" in msg
    with pytest.raises(ModelError, match="cuda:7"):
        plan_placement(1, FREE, requested="cuda:7")
    with pytest.raises(ModelError, match="no CUDA GPU"):
        plan_placement(1, {})


# --------------------------------------------------------------------------- sizes and device maps (meta models)

@pytest.mark.parametrize("head, cls", [("rm", AutoModelForSequenceClassification), ("lm", AutoModelForCausalLM),
                                       ("rm", LlamaForSequenceClassification), ("lm", LlamaForCausalLM)])
def test_model_bytes_from_the_config_alone_match_the_built_model(head, cls):
    real, _ = tiny_model("llama", head=head)
    meta = empty_model(cls, real.config)
    assert next(meta.parameters()).device.type == "meta"
    n_params = sum(p.numel() for p in real.parameters())  # tied embeddings counted once
    n_buffers = sum(b.numel() for b in real.buffers())
    assert model_bytes(meta, torch.bfloat16) == 2 * (n_params + n_buffers)
    assert model_bytes(meta, torch.float32) == 4 * (n_params + n_buffers)


def test_a_single_gpu_plan_maps_the_whole_model_there():
    real, _ = tiny_model("llama")
    meta = empty_model(AutoModelForSequenceClassification, real.config)
    plan = plan_placement(model_bytes(meta, torch.float32), FREE, requested="cuda:2")
    assert device_map_for(plan, meta, torch.float32) == {"": "cuda:2"}


def test_a_split_map_puts_the_input_embeddings_on_the_first_gpu_and_fills_in_the_planned_order():
    real, _ = tiny_model("llama")
    meta = empty_model(AutoModelForSequenceClassification, real.config)
    size = model_bytes(meta, torch.float32)  # ~380 kB: two decoder layers of ~150 kB and the embeddings
    free = {"cuda:0": 10 * size, "cuda:1": int(0.75 * size), "cuda:2": int(0.75 * size)}
    plan = plan_placement(size, free, requested="cuda:2", headroom=0.0)
    assert plan.devices == ("cuda:2", "cuda:0")  # the requested GPU first, then the one with the most room
    dmap = device_map_for(plan, meta, torch.float32)
    assert dmap["model.embed_tokens"] == 2  # where the inputs go
    assert list(dict.fromkeys(dmap.values())) == [2, 0]  # real GPU indices, filled in the plan's order


def test_a_split_that_accelerate_would_spill_to_disk_is_refused_before_loading():
    real, _ = tiny_model("llama")
    meta = empty_model(AutoModelForSequenceClassification, real.config)
    size = model_bytes(meta, torch.float32)
    # enough in sum for the plan, but accelerate keeps room for the largest layer on the first GPU
    plan = plan_placement(size, {"cuda:0": size // 2 + 1, "cuda:1": size // 2 + 1}, headroom=0.0)
    with pytest.raises(ModelError, match="disk"):
        device_map_for(plan, meta, torch.float32)


def test_cuda_device_map_reads_the_config_and_honours_cuda_n(tmp_path, monkeypatch):
    real, _ = tiny_model("llama")
    real.config.save_pretrained(tmp_path)
    monkeypatch.setattr(devices, "gpu_free_bytes", lambda: dict(FREE))
    kwargs = {"trust_remote_code": False, "use_safetensors": True, "num_labels": 1}
    cls = AutoModelForSequenceClassification
    assert devices.cuda_device_map(str(tmp_path), cls, torch.device("cuda:0"), torch.bfloat16, kwargs) == \
        ({"": "cuda:0"}, torch.device("cuda:0"))
    assert devices.cuda_device_map(str(tmp_path), cls, torch.device("cuda"), torch.bfloat16, kwargs) == \
        ({"": "cuda:1"}, torch.device("cuda:1"))
    monkeypatch.setattr(devices, "gpu_free_bytes", lambda: {"cuda:0": 1000})
    with pytest.raises(ModelError, match=f"{tmp_path} in bfloat16: the model needs"):
        devices.cuda_device_map(str(tmp_path), cls, torch.device("cuda"), torch.bfloat16, kwargs)


def test_from_pretrained_checked_loads_onto_the_chosen_gpu_and_keeps_it_there(tmp_path, monkeypatch):
    """The single-GPU map is passed to from_pretrained, and the model is not then moved to plain 'cuda' (cuda:0)."""
    from rmlib.models import hub
    from rmlib.models.base import LoadOptions
    from rmlib.registry import ModelSpec

    real, _ = tiny_model("llama")
    real.config.save_pretrained(tmp_path)
    monkeypatch.setattr(devices, "gpu_free_bytes", lambda: dict(FREE))
    calls = {}

    class Loaded:
        def to(self, device):
            calls["to"] = torch.device(device)
            return self

        def eval(self):
            return self

    class Fake:
        from_config = AutoModelForSequenceClassification.from_config

        @staticmethod
        def from_pretrained(where, **kwargs):
            calls["device_map"] = kwargs.get("device_map")
            return Loaded(), {"missing_keys": []}

    monkeypatch.setattr(hub, "model_class", lambda head: Fake)
    spec = ModelSpec(id="local:test", kind="rm", source="local", path=str(tmp_path))
    hub.from_pretrained_checked(str(tmp_path), spec, "rm", LoadOptions(), torch.device("cuda"), torch.bfloat16)
    assert calls == {"device_map": {"": "cuda:1"}, "to": torch.device("cuda:1")}


# --------------------------------------------------------------------------- loaded models

def test_model_devices_follow_the_device_map_and_else_the_parameters():
    split = SimpleNamespace(hf_device_map={"model.embed_tokens": 2, "model.layers.0": 2, "model.layers.1": 0,
                                           "lm_head": "disk"})
    assert model_devices(split) == [torch.device("cuda:2"), torch.device("cuda:0")]
    real, _ = tiny_model("llama")
    assert model_devices(real) == [torch.device("cpu")]


def test_input_device_is_where_the_input_embeddings_are():
    real, _ = tiny_model("llama")
    assert input_device(real, torch.device("cuda:3")) == torch.device("cpu")
    assert input_device(object(), torch.device("cuda:3")) == torch.device("cuda:3")
    meta = empty_model(AutoModelForSequenceClassification, real.config)
    assert input_device(meta, torch.device("cuda:3")) == torch.device("cuda:3")


def test_on_cpu_nothing_changes():
    lm = load_model("tiny-llama", head="rm", allow_untrained_head=True, dtype="float32", device="cpu")
    assert lm.device == torch.device("cpu")
    assert {p.device for p in lm.model.parameters()} == {torch.device("cpu")}
    assert getattr(lm.model, "hf_device_map", None) is None


# --------------------------------------------------------------------------- the automatic batch across GPUs

def test_the_batch_is_bounded_by_the_gpu_with_the_least_free_memory():
    per_row = 10 * 2**20
    one = batch_size_for_free({"cuda:0": 8 * GiB}, per_row)
    assert one == int(0.5 * 8 * GiB // per_row) == 409
    assert batch_size_for_free({"cuda:0": 80 * GiB, "cuda:1": 8 * GiB}, per_row) == one  # the minimum, not the sum
    assert batch_size_for_free({"cuda:0": 8 * GiB, "cuda:1": 80 * GiB}, per_row) == one
    assert batch_size_for_free({"cuda:0": 1}, per_row) == 1
    assert batch_size_for_free({"cuda:0": 10**15}, per_row) == 8192
    with pytest.raises(ValueError):
        batch_size_for_free({}, per_row)


def test_auto_batch_size_reads_every_gpu_the_model_spans(monkeypatch):
    asked = []

    def mem_get_info(device):
        asked.append(torch.device(device))
        return ({0: 80 * GiB, 1: 4 * GiB}[torch.device(device).index], 96 * GiB)

    monkeypatch.setattr(torch.cuda, "mem_get_info", mem_get_info)
    config = SimpleNamespace(hidden_size=1024, intermediate_size=4096)
    model = SimpleNamespace(config=config, hf_device_map={"model.embed_tokens": 0, "model.layers": 1})
    lm = SimpleNamespace(device=torch.device("cuda:0"), model=model, dtype=torch.bfloat16)
    per_row = 100 * (6 * 1024 + 3 * 4096) * 2 * 4
    assert auto_batch_size(lm, 100) == batch_size_for_free({"cuda:1": 4 * GiB}, per_row) == 145
    assert asked == [torch.device("cuda:0"), torch.device("cuda:1")]


# --------------------------------------------------------------------------- a split keeps each reward head whole

def _device_of(dmap: dict, name: str):
    """The device the map gives module or tensor ``name`` (its own entry, or the nearest enclosing module's)."""
    keys = [k for k in dmap if k == "" or name == k or name.startswith(k + ".")]
    return dmap[max(keys, key=len)]


def _paper_rm_on_meta(hub_id: str, layers: int):
    from transformers import AutoConfig

    from rmlib.models.native_rms import native_class
    from tests.integration import paper_layouts as pl

    family, layout = pl.LAYOUTS[hub_id]
    config = pl.backbone_config(family, pad=0, vocab=320).to_dict()
    config.pop("layer_types", None)  # Gemma-2's per-layer attention kinds: rebuilt for the new depth
    config.update(num_hidden_layers=layers, **pl._head_config(layout))
    config.setdefault("architectures", [f"{'Llama' if family == 'llama' else 'Gemma2'}ForSequenceClassification"])
    config = AutoConfig.for_model(**config)
    cls = native_class(config) or AutoModelForSequenceClassification
    return empty_model(cls, config)


@pytest.mark.parametrize("hub_id", ["RLHFlow/ArmoRM-Llama3-8B-v0.1", "nicolinho/QRM-Llama3.1-8B",
                                    "nicolinho/QRM-Gemma-2-27B", "LxzGordon/URM-LLaMa-3.1-8B",
                                    "Ray2333/GRM-Llama3-8B-rewardmodel-ft", "Ray2333/GRM-gemma2-2B-rewardmodel-ft"])
def test_every_split_point_keeps_the_reward_head_on_the_device_of_the_final_norm(hub_id):
    """#40 item 1: split over two GPUs, accelerate put ArmoRM's root-level reward_transform_matrix on the first and
    its regression layer and gating network on the second (and URM's score and weights apart), so the head's own
    arithmetic mixed devices. Every split point of a 6-layer model, from the embeddings alone on the first GPU to
    all but the head: the head's modules and tensors all sit where the final norm (its input) is."""
    model = _paper_rm_on_meta(hub_id, layers=6)
    total = model_bytes(model, torch.float32)
    head = [n for n, _ in model.named_children() if n != model.base_model_prefix]
    head += [n for n, _ in model.named_parameters(recurse=False)]
    assert head, "the model has a head outside its backbone"
    splits = set()
    for share in np.linspace(0.05, 0.97, 24):
        budgets = {"cuda:0": int(total * share), "cuda:1": total}
        dmap = device_map_for(Placement(("cuda:0", "cuda:1"), total, budgets), model, torch.float32)
        if len(set(dmap.values())) < 2:
            continue
        norm = _device_of(dmap, f"{model.base_model_prefix}.norm")
        splits.add(tuple(sorted((k, v) for k, v in dmap.items())))
        for name in head:
            placed = {v for k, v in dmap.items() if k == name or k.startswith(name + ".")} or {_device_of(dmap, name)}
            assert placed == {norm}, f"{hub_id} at a {share:.2f} split: {name} on {placed}, the final norm on {norm}"
    assert len(splits) >= 4  # several distinct split points were tried
