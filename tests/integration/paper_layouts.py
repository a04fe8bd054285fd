"""Tiny random checkpoints in the published layouts of the 10 paper RMs, and an independent reference scorer.

Each checkpoint has the model's config.json fields as published (``architectures``, ``auto_map``, the head's own
fields) at tiny sizes, tensors under the published names, and the family's tokenizer (Llama-3 or Gemma turn
markers), written into a Hugging Face cache folder as the hub client lays it out, at the registry's pinned commit.
So ``load_model('<hub id>')`` goes through the ordinary hub path, offline.

The reference never touches rmlib's scoring: a plain eager transformers forward of each whole conversation, and
each head's math written out here with torch operations on the saved tensors. The gating position is found by its
own rule (the last end-of-turn token of the prompt), not by searching a pattern as rmlib does.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import save_file
from transformers import Gemma2Config, Gemma2Model, LlamaConfig, LlamaModel

from rmlib.models.tiny import tiny_tokenizer

HIDDEN, WIDTH = 64, 24  # backbone width, gating-network width
ARMO = "RLHFlow/ArmoRM-Llama3-8B-v0.1"
QRM_LLAMA = "nicolinho/QRM-Llama3.1-8B"
QRM_GEMMA = "nicolinho/QRM-Gemma-2-27B"
URM = "LxzGordon/URM-LLaMa-3.1-8B"

# hub id -> (family, head layout). Field values as published, dimensions tiny.
LAYOUTS = {
    "Skywork/Skywork-Reward-Gemma-2-27B-v0.2": ("gemma2", "seqcls"),
    "Skywork/Skywork-Reward-Gemma-2-27B": ("gemma2", "seqcls"),
    "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2": ("llama", "seqcls"),
    "Ray2333/GRM-Llama3-8B-rewardmodel-ft": ("llama", "seqcls"),
    "Ray2333/GRM-Llama3.2-3B-rewardmodel-ft": ("llama", "seqcls"),
    "Ray2333/GRM-gemma2-2B-rewardmodel-ft": ("gemma2", "seqcls"),
    ARMO: ("llama", "armo"),
    QRM_LLAMA: ("llama", "qrm_llama"),
    QRM_GEMMA: ("gemma2", "qrm_gemma"),
    URM: ("llama", "urm"),
}
UNPINNED_COMMIT = "1" * 40  # refs/main of a model the registry does not pin


def backbone_config(family: str, pad: int, vocab: int, softcap: float | None = 50.0):
    common = dict(vocab_size=vocab, hidden_size=HIDDEN, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, pad_token_id=pad)
    if family == "llama":
        return LlamaConfig(**common, tie_word_embeddings=False)
    return Gemma2Config(**common, head_dim=16, attn_logit_softcapping=softcap, final_logit_softcapping=30.0,
                        sliding_window=64, query_pre_attn_scalar=16)


def _head_config(layout: str) -> dict:
    auto = {"auto_map": {"AutoModelForSequenceClassification": None}}
    if layout == "seqcls":
        return {"id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}}
    if layout == "armo":
        auto["auto_map"]["AutoModelForSequenceClassification"] = "modeling_custom.LlamaForRewardModelWithGating"
        return {**auto, "architectures": ["LlamaForRewardModelWithGating"], "num_objectives": 19,
                "gating_temperature": 10, "gating_hidden_dim": WIDTH, "gating_n_hidden": 3,
                "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}}
    if layout == "qrm_llama":
        auto["auto_map"]["AutoModelForSequenceClassification"] = "modeling_custom.LlamaForRewardModelWithGating"
        return {**auto, "architectures": ["LlamaForRewardModelWithGating"], "num_objectives": 19,
                "num_quantiles": 19, "gating_temperature": 5.0, "gating_hidden_dim": WIDTH, "gating_n_hidden": 3,
                "loss": "quantile_regression", "gating_newtork": True}
    if layout == "qrm_gemma":
        auto["auto_map"]["AutoModelForSequenceClassification"] = "modeling_custom.Gemma2ForRewardModelWithGating"
        return {**auto, "architectures": ["Gemma2ForRewardModelWithGating"], "num_objectives": 5,
                "num_quantiles": 19, "gating_temperature": 10, "gating_hidden_dim": WIDTH, "gating_n_hidden": 3}
    auto["auto_map"]["AutoModelForSequenceClassification"] = \
        "modeling_custom.LlamaForSequenceClassificationWithNormal_Weights"
    labels = {str(i): f"LABEL_{i}" for i in range(10)}
    return {**auto, "architectures": ["LlamaForSequenceClassificationWithNormal_Weights"], "id2label": labels,
            "label2id": {v: int(k) for k, v in labels.items()}}


def _bn(tensors: dict, name: str, g: torch.Generator) -> None:
    tensors[f"{name}.weight"] = 1 + 0.3 * torch.randn(WIDTH, generator=g)
    tensors[f"{name}.bias"] = 0.3 * torch.randn(WIDTH, generator=g)
    tensors[f"{name}.running_mean"] = 0.5 * torch.randn(WIDTH, generator=g)
    tensors[f"{name}.running_var"] = 0.5 + torch.rand(WIDTH, generator=g)
    tensors[f"{name}.num_batches_tracked"] = torch.tensor(100)


def head_tensors(layout: str, family: str, g: torch.Generator, transform: bool = True) -> dict:
    """The head's tensors under their published names (random, scaled so that every part moves the score)."""
    r = lambda *shape, s=1.0: s * torch.randn(*shape, generator=g) / shape[-1] ** 0.5  # noqa: E731
    if layout == "seqcls":
        return {"score.weight": r(1, HIDDEN, s=4.0)}
    if layout == "urm":
        return {"score.weight": r(10, HIDDEN, s=4.0), "weights.fc.0.weight": r(HIDDEN, HIDDEN, s=2.0),
                "weights.fc.0.bias": r(HIDDEN), "weights.fc.2.weight": r(HIDDEN, HIDDEN, s=2.0),
                "weights.fc.2.bias": r(HIDDEN), "weights.fc.4.weight": r(5, HIDDEN, s=2.0),
                "weights.fc.4.bias": r(5)}
    objectives = 5 if layout == "qrm_gemma" else 19
    out = {"regression_layer.weight": r(objectives * (19 if layout.startswith("qrm") else 1), HIDDEN, s=4.0),
           "gating.logit_scale": torch.tensor([1.7])}
    if layout == "armo":
        for i, (o, n) in enumerate([(WIDTH, HIDDEN), (WIDTH, WIDTH), (WIDTH, WIDTH), (objectives, WIDTH)]):
            out[f"gating.layers.{i}.weight"], out[f"gating.layers.{i}.bias"] = r(o, n, s=3.0), r(o)
    else:
        step = 4 if layout == "qrm_gemma" else 3  # Gemma-2's blocks end with a Dropout: indices 0, 4, 8
        for b, n in enumerate([HIDDEN, WIDTH, WIDTH]):
            out[f"gating.layers.{b * step}.weight"] = r(WIDTH, n, s=3.0)
            _bn(out, f"gating.layers.{b * step + 2}", g)
        final = 3 * step if layout == "qrm_llama" else 11
        out[f"gating.layers.{final}.weight"], out[f"gating.layers.{final}.bias"] = r(objectives, WIDTH, s=3.0), r(objectives)
    if transform and layout in ("armo", "qrm_llama"):
        out["reward_transform_matrix"] = torch.eye(objectives) + 0.3 * torch.randn(objectives, objectives, generator=g)
    return out


def write_checkpoint(folder: Path, hub_id: str, seed: int = 0, transform: bool = True,
                     softcap: float | None = 50.0) -> dict:
    """One model's tiny checkpoint in its published layout; returns the saved tensors."""
    family, layout = LAYOUTS[hub_id]
    tok = tiny_tokenizer(family)
    cfg = backbone_config(family, tok.pad_token_id, len(tok), softcap)
    torch.manual_seed(seed)
    backbone = (LlamaModel if family == "llama" else Gemma2Model)(cfg)
    tensors = {f"model.{k}": v.detach().clone().contiguous() for k, v in backbone.state_dict().items()}
    tensors.update(head_tensors(layout, family, torch.Generator().manual_seed(seed + 1), transform))
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    config = cfg.to_dict()
    config.update({"architectures": [f"{type(backbone).__name__.removesuffix('Model')}ForSequenceClassification"],
                   "torch_dtype": "float32"})
    config.update(_head_config(layout))
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    tok.save_pretrained(folder)
    return tensors


def hub_cache_checkpoint(cache: Path, hub_id: str, revision: str | None, **kw) -> dict:
    """Write the checkpoint where the hub client looks for ``hub_id`` at ``revision`` (refs/main when unpinned)."""
    commit = revision or UNPINNED_COMMIT
    repo = cache / f"models--{hub_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    return write_checkpoint(repo / "snapshots" / commit, hub_id, **kw)


# ------------------------------------------------------------------ the independent reference

def _bn_eval(x, t, name, eps=1e-5):
    return (x - t[f"{name}.running_mean"]) / torch.sqrt(t[f"{name}.running_var"] + eps) * t[f"{name}.weight"] \
        + t[f"{name}.bias"]


def reference_head(layout: str, t: dict, last: torch.Tensor, gate: torch.Tensor | None, reader: str) -> torch.Tensor:
    """Each head's math, written out from the published descriptions (float32)."""
    if layout == "seqcls":
        return last @ t["score.weight"][0]
    if layout == "urm":
        out = last @ t["score.weight"].T
        if reader == "urm_column0":
            return out[:, 0]
        w = torch.nn.functional.selu(last @ t["weights.fc.0.weight"].T + t["weights.fc.0.bias"])
        w = torch.nn.functional.selu(w @ t["weights.fc.2.weight"].T + t["weights.fc.2.bias"])
        w = w @ t["weights.fc.4.weight"].T + t["weights.fc.4.bias"]
        return (out[:, 0::2] * w).sum(1)
    rewards = last @ t["regression_layer.weight"].T
    x = gate
    if layout == "armo":
        for i in range(3):
            x = torch.relu(x @ t[f"gating.layers.{i}.weight"].T + t[f"gating.layers.{i}.bias"])
        x = x @ t["gating.layers.3.weight"].T + t["gating.layers.3.bias"]
        temperature = 10
    else:
        rewards = rewards.view(len(last), -1, 19).mean(2)
        step = 4 if layout == "qrm_gemma" else 3
        for b in range(3):
            x = _bn_eval(torch.relu(x @ t[f"gating.layers.{b * step}.weight"].T), t, f"gating.layers.{b * step + 2}")
        final = 3 * step if layout == "qrm_llama" else 11
        x = x @ t[f"gating.layers.{final}.weight"].T + t[f"gating.layers.{final}.bias"]
        temperature = 5.0 if layout == "qrm_llama" else 10
    if "reward_transform_matrix" in t:
        rewards = rewards @ t["reward_transform_matrix"]
    gate_w = torch.softmax(x / temperature, dim=1) * t["gating.logit_scale"][0]
    return (gate_w * rewards).sum(1)


def gate_position(ids, tok, family: str, in_prompt: bool = True) -> int:
    """The end-of-turn token that closes the user's turn: the last one of the templated prompt (``in_prompt``), or
    of a whole conversation, the one before the answer's own."""
    end = tok.convert_tokens_to_ids("<|eot_id|>" if family == "llama" else "<end_of_turn>")
    ends = [i for i, t in enumerate(ids) if t == end]
    return ends[-1] if in_prompt else ends[-2]


@torch.no_grad()
def reference_scores(hub_id: str, tensors: dict, slot, token_ids, reader: str, softcap: float | None = 50.0,
                     seqs=None, read_at=None):
    """Scores of every candidate token by an eager forward of the whole conversation and the head's math; or, with
    ``seqs``, of those whole conversations (token ids, any lengths), each read at its last token or, with
    ``read_at``, at the position given per conversation."""
    family, layout = LAYOUTS[hub_id]
    tok = tiny_tokenizer(family)
    cfg = backbone_config(family, tok.pad_token_id, len(tok), softcap)
    cfg._attn_implementation = "eager"
    backbone = (LlamaModel if family == "llama" else Gemma2Model)(cfg).eval()
    backbone.load_state_dict({k.removeprefix("model."): v for k, v in tensors.items() if k.startswith("model.")})
    in_prompt = seqs is None  # a candidate after the templated prompt: the gate is the prompt's last end of turn
    seqs = [slot.ids_for([int(i)]) for i in token_ids] if seqs is None else [list(s) for s in seqs]
    out = torch.empty(len(seqs))
    for n in sorted({len(s) for s in seqs}):
        rows = [i for i, s in enumerate(seqs) if len(s) == n]
        ids = torch.tensor([seqs[i] for i in rows])
        hidden = backbone(input_ids=ids).last_hidden_state
        gate = torch.stack([hidden[k, gate_position(slot.prefix_ids if in_prompt else seqs[i], tok, family,
                                                    in_prompt)] for k, i in enumerate(rows)])
        at = [n - 1 if read_at is None else read_at[i] for i in rows]
        out[rows] = reference_head(layout, tensors, hidden[torch.arange(len(rows)), at], gate, reader)
    return out
