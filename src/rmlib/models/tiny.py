"""Tiny random-weight models of each architecture family, built in-process.

Tests need every code path (Llama, Gemma-2 soft-capping, Gemma-3 sliding
windows, Qwen-2 biases) without a download, in milliseconds. Weights are random
and seeded, so these models are only for checking arithmetic, never findings.
"""
from __future__ import annotations

import hashlib

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import (Gemma2Config, Gemma3TextConfig, LlamaConfig, PreTrainedTokenizerFast,
                          Qwen2Config)

from rmlib.models.base import LoadOptions, Source
from rmlib.registry import ModelSpec

_CORPUS = """What, in one word, is the greatest thing ever? What is the best thing in the world?
What, in a single word, is the worst thing of all time? Please answer in one word only.
love peace hope joy kindness freedom music family friendship truth war hate fear pain cruelty
agency communion care fairness loyalty authority sanctity harm cheating betrayal subversion degradation
You are a helpful assistant. The quick brown fox jumps over the lazy dog. I think the answer is good.
"""

# Turn markers per family: (special tokens, chat template, bos, eos, add_bos)
_STYLES = {
    "llama": (["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|pad|>"],
              "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
              "{{ m['content'] | trim }}<|eot_id|>{% endfor %}"
              "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}",
              "<|begin_of_text|>", "<|eot_id|>", True),
    "gemma": (["<bos>", "<eos>", "<pad>", "<start_of_turn>", "<end_of_turn>"],
              "{{ bos_token }}{% for m in messages %}<start_of_turn>"
              "{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n{{ m['content'] | trim }}<end_of_turn>\n"
              "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}",
              "<bos>", "<eos>", True),
    "chatml": (["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
               "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
               "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
               None, "<|im_end|>", False),
}
FAMILY_STYLE = {"llama": "llama", "gemma2": "gemma", "gemma3": "gemma", "qwen2": "chatml"}


def tiny_tokenizer(family: str, vocab_size: int = 320) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer with the family's turn markers and chat template."""
    specials, template, bos, eos, add_bos = _STYLES[FAMILY_STYLE[family]]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([_CORPUS] * 4, trainer=trainer)
    if add_bos:
        tok.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, tok.token_to_id(bos))])
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    pad = {"llama": "<|pad|>", "gemma": "<pad>", "chatml": "<|endoftext|>"}[FAMILY_STYLE[family]]
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=bos, eos_token=eos, pad_token=pad)
    fast.chat_template = template
    return fast


def tiny_config(family: str, vocab_size: int, pad_token_id: int):
    common = dict(vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                  pad_token_id=pad_token_id, tie_word_embeddings=True, num_labels=1)
    if family == "llama":
        return LlamaConfig(**common)
    if family == "gemma2":
        return Gemma2Config(**common, head_dim=16, attn_logit_softcapping=50.0, final_logit_softcapping=30.0,
                            sliding_window=64, query_pre_attn_scalar=16)
    if family == "gemma3":
        return Gemma3TextConfig(**common, head_dim=16, sliding_window=64, query_pre_attn_scalar=16,
                                layer_types=["sliding_attention", "full_attention"])
    if family == "qwen2":
        return Qwen2Config(**common)
    raise ValueError(f"no tiny config for family {family!r}; known: llama, gemma2, gemma3, qwen2")


def tiny_model(family: str, head: str = "rm", seed: int = 0, dtype=torch.float32):
    """(model, tokenizer) with seeded random weights; head is 'rm' (scalar) or 'lm'."""
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    tok = tiny_tokenizer(family)
    cfg = tiny_config(family, len(tok), tok.pad_token_id)
    cfg._attn_implementation = "eager" if family == "gemma2" else "sdpa"
    torch.manual_seed(seed)
    cls = AutoModelForSequenceClassification if head == "rm" else AutoModelForCausalLM
    model = cls.from_config(cfg, dtype=dtype)
    if head == "rm":
        # A random head of std 0.02 gives near-constant scores; widen it so orderings are informative in tests.
        torch.nn.init.normal_(model.score.weight, std=1.0)
    return model.eval(), tok


def _tokenizer(spec: ModelSpec, trust_remote_code: bool):
    return tiny_tokenizer(spec.family)


def _load(spec: ModelSpec, head: str, options: LoadOptions, device, dtype):
    model, tok = tiny_model(spec.family, head=head, seed=options.seed, dtype=dtype)
    return model, tok, []


def _revision(spec: ModelSpec, model) -> str:
    """Built in-process: a hash of the weights themselves (another seed is another model)."""
    h = hashlib.sha256()
    for name, t in model.state_dict().items():
        h.update(name.encode())
        h.update(t.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
    return f"tiny-weights:{h.hexdigest()[:16]}"


SOURCE = Source(tokenizer=_tokenizer, load=_load, revision=_revision)
