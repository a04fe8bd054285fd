"""rmlib's own implementation of the reward heads of ArmoRM, QRM and URM, over transformers' Llama and Gemma-2.

Why: these RMs ship their heads as hub code (``auto_map``) that no longer imports on the transformers rmlib pins
(``LLAMA_INPUTS_DOCSTRING`` is gone), forces FlashAttention-2, and would have to run as remote code. The heads are
small and their math is public, so rmlib implements each one here, loads the published safetensors by their own
parameter names and config fields, and never runs the models' code. What each reads, as the authors' code does:

* **ArmoRM** (RLHFlow/ArmoRM-Llama3-8B-v0.1, ``LlamaForRewardModelWithGating``): ``rewards = regression_layer(h)``
  (19 objectives) at the last token; a gating MLP (3 hidden ReLU layers, biased) on the hidden state at the
  *gating token*, the ``<|eot_id|>`` that closes the last user turn, found as the last occurrence of
  ``<|eot_id|><|start_header_id|>assistant<|end_header_id|>\\n\\n``; ``gate = softmax(mlp / T) * logit_scale``;
  ``score = sum(gate * (rewards @ reward_transform_matrix))``.
* **QRM** (nicolinho/QRM-Llama3.1-8B and QRM-Gemma-2-27B; config ``num_quantiles``): the regression layer gives
  objectives x quantiles (objective-major); the expectation of each objective is the mean of its quantiles; the
  gate is as ArmoRM's but its hidden blocks are Linear (no bias), ReLU, BatchNorm (Gemma-2: then Dropout, inactive
  when scoring); Llama's gating pattern is ArmoRM's, Gemma-2's ``<end_of_turn>\\n<start_of_turn>model\\n``.
* **URM** (LxzGordon/URM-LLaMa-3.1-8B): ``score`` gives 10 outputs, (mean, spread) of 5 HelpSteer2 attributes,
  interleaved; ``weights.fc`` (Linear, SELU, Linear, SELU, Linear to 5) weighs the means: its own reward is
  ``sum(mean_i * w_i)`` (:func:`urm_reward`). The paper loaded URM without remote code and read column 0, the first
  attribute's mean: the registry keeps that reading as the default (``urm_column0``) and offers ``urm_gated``.

Sources read (no code copied): the ArmoRM hub code and RLHFlow's training code; RewardBench's QRM port and QRM's
model cards; sglang's URM port. What was not read from the published files themselves is listed in the README
("Paper RMs: what rmlib implements natively"). Heads run in float32 (``_keep_in_fp32_modules_strict``), as QRM's
code does; a load whose head tensors are missing or left over is refused, never served with random weights.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from transformers import Gemma2Model, Gemma2PreTrainedModel, LlamaModel, LlamaPreTrainedModel
from transformers.utils import ModelOutput

from rmlib.models.reward_heads import find_last, paper_last_index
from rmlib.registry import ModelError

__all__ = ["NATIVE_ARCHITECTURES", "native_class", "check_loading_info", "urm_reward", "random_native_rm",
           "ArmoRM", "QRMLlama", "QRMGemma2", "URM"]

# The gating tokens as text (tokenised with the model's own tokenizer) and, for the real tokenizers, the ids the
# authors' code hard-codes: a tokenizer that gives other ids for the same tokens is refused.
LLAMA3_GATE = ("<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>", 128009,
               (128009, 128006, 78191, 128007, 271))
GEMMA2_GATE = ("<end_of_turn>\n<start_of_turn>model\n", "<end_of_turn>", 107, (107, 108, 106, 2516, 108))


@dataclass
class NativeOutput(ModelOutput):
    """What a native model's forward gives (the paper pipeline): the hidden states at the last token and at the
    gating token, found as the authors' code finds them; the reader turns them into the score."""

    last_hidden: torch.Tensor | None = None
    gate_hidden: torch.Tensor | None = None


def gate_pattern_ids(tokenizer, gate) -> tuple[int, ...]:
    text, anchor, anchor_id, published = gate
    ids = tuple(tokenizer(text, add_special_tokens=False).input_ids)
    if tokenizer.convert_tokens_to_ids(anchor) == anchor_id and ids != published:
        raise ModelError(f"this tokenizer gives the gating tokens {text!r} as {list(ids)}, not the ids "
                         f"{list(published)} the model's own code looks for")
    return ids


class _Gate(nn.Module):
    """The gating network. ``block`` lists one hidden block's modules in the published order ('L' linear, 'R'
    ReLU, 'B' BatchNorm, 'D' dropout), so that the parameters keep their published indices; a block of 'L' alone
    (ArmoRM: the list holds only the linears) applies its ReLU in the forward. The final linear follows."""

    def __init__(self, hidden: int, objectives: int, width: int, n_hidden: int, block: str, biased: bool,
                 temperature: float, last_block: str | None = None):
        super().__init__()
        layers, d = [], hidden
        for i in range(n_hidden):
            for kind in (last_block if last_block and i == n_hidden - 1 else block):
                if kind == "L":
                    layers.append(nn.Linear(d, width, bias=biased))
                    d = width
                elif kind == "R":
                    layers.append(nn.ReLU())
                elif kind == "B":
                    layers.append(nn.BatchNorm1d(width))
                else:
                    layers.append(nn.Dropout(0.0))
        layers.append(nn.Linear(d, objectives, bias=True))
        self.layers = nn.ModuleList(layers)
        self.temperature = float(temperature)
        self.implicit_relu = block == "L"
        self.logit_scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if self.implicit_relu and i < len(self.layers) - 1:
                x = torch.relu(x)
        return torch.softmax(x / self.temperature, dim=1) * self.logit_scale[0]


class _Native:
    """What the native classes share: the backbone forward of the paper pipeline and the loading checks."""

    gate = None              # (text, anchor token, its published id, the published ids) or None
    optional_keys: tuple = ()  # head tensors a checkpoint may lack (their initial value is the published meaning)
    rmlib_default_reader = "logits0"

    def gate_pattern(self, tokenizer):
        return gate_pattern_ids(tokenizer, self.gate) if self.gate else None

    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
        rows = torch.arange(hidden.shape[0], device=hidden.device)
        last = hidden[rows, paper_last_index(input_ids, self.config.pad_token_id).to(hidden.device)]  # as the authors'
        gate = None
        pattern = getattr(self, "rmlib_gate_pattern", None)
        if pattern:
            where = [find_last(row.tolist(), pattern) for row in input_ids]
            if any(j is None for j in where):
                raise ModelError("a conversation has no gating tokens (the end of the user's turn)")
            gate = hidden[rows, torch.tensor(where, device=hidden.device)]
        return NativeOutput(last_hidden=last, gate_hidden=gate)


_HEAD_FP32 = ["regression_layer", "gating", "reward_transform_matrix", "weights", "score"]


class _GatedRM(_Native):
    """The gated heads (ArmoRM, QRM): a regression layer of objectives (each as quantiles in QRM), mixed by a gating
    network on the hidden state at the end of the user's turn, and in the Llama models a fixed transform of the
    objectives. A subclass names its backbone, the layout of its gate's hidden blocks (:class:`_Gate`) and which of
    the two options it has; the head computes in float32, as the published code does."""

    backbone = None          # the transformers backbone class
    gate_layout: dict = {}   # _Gate's block, last_block and biased
    quantiles = False        # the regression layer gives num_quantiles values per objective (QRM)
    transform = False        # a reward_transform_matrix follows the regression layer
    _keep_in_fp32_modules_strict = _HEAD_FP32

    def __init__(self, config):
        super().__init__(config)
        self.model = self.backbone(config)
        hidden, objectives = config.hidden_size, int(getattr(config, "num_objectives", 19))
        self.n_quantiles = int(getattr(config, "num_quantiles", 0) or 0) if self.quantiles else 0
        self.regression_layer = nn.Linear(hidden, objectives * max(self.n_quantiles, 1), bias=False)
        self.gating = _Gate(hidden, objectives, int(getattr(config, "gating_hidden_dim", 1024)),
                            int(getattr(config, "gating_n_hidden", 3)),
                            temperature=float(getattr(config, "gating_temperature", 10)), **self.gate_layout)
        if self.transform:
            self.reward_transform_matrix = nn.Parameter(torch.eye(objectives), requires_grad=False)
        self.post_init()

    def reward_from_hidden(self, last, gate_hidden):
        """The score from the hidden states at the last token and at the gating token (float32)."""
        at = self.regression_layer.weight.device  # the whole head sits on one device (devices.heads_with_final_norm)
        last, gate_hidden = last.to(at), gate_hidden.to(at)
        rewards = self.regression_layer(last.float())
        if self.n_quantiles:
            rewards = rewards.view(len(last), -1, self.n_quantiles).mean(2)  # each objective's expectation
        if hasattr(self, "reward_transform_matrix"):
            rewards = rewards @ self.reward_transform_matrix.float()
        return (self.gating(gate_hidden.float()) * rewards).sum(1)


class ArmoRM(_GatedRM, LlamaPreTrainedModel):
    """RLHFlow's ArmoRM-Llama3-8B: a gate of plain linears (its ReLUs in the forward), objectives transformed."""

    gate, backbone, gate_layout, transform = LLAMA3_GATE, LlamaModel, dict(block="L", biased=True), True
    rmlib_default_reader = "armo_gated"


class QRMLlama(_GatedRM, LlamaPreTrainedModel):
    """QRM-Llama3.1-8B: quantile objectives, a gate of linear, ReLU and BatchNorm blocks, objectives transformed."""

    gate, backbone, gate_layout = LLAMA3_GATE, LlamaModel, dict(block="LRB", biased=False)
    quantiles = transform = True
    rmlib_default_reader = "qrm_expectation"
    optional_keys = ("reward_transform_matrix",)  # identity when a checkpoint does not store it


class QRMGemma2(_GatedRM, Gemma2PreTrainedModel):
    """QRM-Gemma-2-27B: quantile objectives, a gate with dropout in every block but the last, no transform (its
    code could not be read: the layout is the checkpoint's, read by analogy with QRM-Llama; registry.yaml says so)."""

    gate, backbone = GEMMA2_GATE, Gemma2Model
    gate_layout = dict(block="LRBD", last_block="LRB", biased=False)
    quantiles = True
    rmlib_default_reader = "qrm_expectation"


class _URMWeights(nn.Module):
    def __init__(self, hidden: int, attributes: int):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(hidden, hidden), nn.SELU(), nn.Linear(hidden, hidden), nn.SELU(),
                                nn.Linear(hidden, attributes))


def urm_reward(outputs: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """URM's own reward: its outputs are (mean, spread) per attribute, interleaved; the means weighted by
    ``weights`` (no normalisation, as URM's code)."""
    means = outputs.float().view(len(outputs), -1, 2)[:, :, 0]
    return (means * weights.float()).sum(1)


class URM(_Native, LlamaPreTrainedModel):
    rmlib_default_reader = "urm_gated"  # a folder of URM's layout outside the registry: the model's own reward
    _keep_in_fp32_modules_strict = _HEAD_FP32

    def __init__(self, config):
        super().__init__(config)
        self.model = LlamaModel(config)
        self.score = nn.Linear(config.hidden_size, int(config.num_labels), bias=False)
        self.weights = _URMWeights(config.hidden_size, int(config.num_labels) // 2)
        self.post_init()

    def gated_reward(self, last):
        last = last.to(self.score.weight.device).float()
        return urm_reward(self.score(last), self.weights.fc(last))


# config.json `architectures` -> the native class (a config field tells the variants of one name apart)
NATIVE_ARCHITECTURES = {
    "LlamaForRewardModelWithGating": lambda cfg: QRMLlama if getattr(cfg, "num_quantiles", None) else ArmoRM,
    "Gemma2ForRewardModelWithGating": lambda cfg: QRMGemma2,
    "LlamaForSequenceClassificationWithNormal_Weights": lambda cfg: URM,
}


def native_class(config):
    """The native class for a loaded config, or None when rmlib has none (the model is loaded as transformers
    loads it). A known architecture on another backbone than its own is refused, not loaded half right."""
    names = getattr(config, "architectures", None) or []
    for name in names:
        if name in NATIVE_ARCHITECTURES:
            cls = NATIVE_ARCHITECTURES[name](config)
            expected = cls.config_class.model_type
            if config.model_type != expected:
                raise ModelError(f"{name} with model_type {config.model_type!r}: rmlib's native head for it runs on "
                                 f"a {expected!r} backbone")
            return cls
    return None


def check_loading_info(model, info: dict, where: str) -> None:
    """Refuse a native load that left a tensor random (missing) or unread (unexpected): the layout is not the one
    rmlib implements, and a score from it would be wrong."""
    missing = [k for k in info.get("missing_keys", []) if k not in model.optional_keys]
    unexpected = list(info.get("unexpected_keys", []))
    if missing or unexpected:
        raise ModelError(f"{where}: the weights do not fit rmlib's native {type(model).__name__} "
                         f"(missing {sorted(missing)[:6]}, unexpected {sorted(unexpected)[:6]}); "
                         "this checkpoint's layout differs from the published one")
    with torch.no_grad():  # an optional tensor the checkpoint lacks takes its published meaning, never leftovers
        for key in set(info.get("missing_keys", [])) & set(model.optional_keys):
            if key == "reward_transform_matrix":
                model.reward_transform_matrix.copy_(torch.eye(len(model.reward_transform_matrix)))


def random_native_rm(architecture: str, config, dtype=torch.bfloat16):
    """A native RM with random weights for ``config`` (speed checks, tests): e.g. "LlamaForRewardModelWithGating"
    on a Llama config with num_objectives etc. set."""
    if architecture not in NATIVE_ARCHITECTURES:
        raise ModelError(f"no native head {architecture!r}; known: {sorted(NATIVE_ARCHITECTURES)}")
    config.architectures = [architecture]
    model = NATIVE_ARCHITECTURES[architecture](config)._from_config(config, dtype=dtype)
    for name in _HEAD_FP32:  # as from_pretrained keeps them (_keep_in_fp32_modules_strict), which _from_config does not
        part = getattr(model, name, None)
        if isinstance(part, nn.Module):
            part.float()
        elif isinstance(part, nn.Parameter):
            part.data = part.data.float()
    return model.eval()
