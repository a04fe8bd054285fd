"""Which tokenizer folders :func:`rmlib.models.files.saved_tokenizer` reads as saved and gives their class
(the class adds only defaults), and which go through AutoTokenizer (anything else): decided from the folder's
``tokenizer_config.json`` alone, without reading the tokenizer."""
from __future__ import annotations

import json

import pytest

from rmlib.models.files import _defaults_only_class


# what a saved Gemma-3 or Qwen2.5 config names (each class's constructor defaults a few of these)
SPECIAL_TOKENS = {"unk_token": "<unk>", "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
                  "mask_token": "<mask>", "add_prefix_space": None}


def folder_with(tmp_path, config, tokenizer_json=True):
    tmp_path.joinpath("tokenizer_config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    if tokenizer_json:
        tmp_path.joinpath("tokenizer.json").write_text("{}")
    return tmp_path


@pytest.mark.parametrize("name, model_type, expected", [
    ("GemmaTokenizer", None, "GemmaTokenizer"), ("GemmaTokenizerFast", "gemma3_text", "GemmaTokenizer"),
    ("Qwen2Tokenizer", "qwen2", "Qwen2Tokenizer"), ("TokenizersBackend", "llama", "TokenizersBackend"),
    ("PreTrainedTokenizerFast", None, "TokenizersBackend")])
def test_a_class_that_adds_only_defaults_is_read_as_saved(tmp_path, name, model_type, expected):
    if model_type:
        tmp_path.joinpath("config.json").write_text(json.dumps({"model_type": model_type}))
    named = {"tokenizer_class": name, "padding_side": "left", **SPECIAL_TOKENS}
    cls, config = _defaults_only_class(folder_with(tmp_path, named))
    assert cls.__name__ == expected and config["padding_side"] == "left"


def test_a_class_whose_constructor_would_add_a_default_token_goes_through_autotokenizer(tmp_path):
    """GemmaTokenizer's constructor adds mask_token='<mask>' when the config names none; read as saved, it would
    not be there."""
    tokens = {k: v for k, v in SPECIAL_TOKENS.items() if k != "mask_token"}
    assert _defaults_only_class(folder_with(tmp_path, {"tokenizer_class": "GemmaTokenizer", **tokens})) is None


@pytest.mark.parametrize("name, model_type, vocabulary, why", [
    ("LlamaTokenizer", None, None, "AutoTokenizer reads a byte-level pipeline named LlamaTokenizer generically"),
    ("GemmaTokenizer", "qwen2", None, "AutoTokenizer prefers the class registered for the model type"),
    ("Qwen2Tokenizer", None, "vocab.json", "the class's own vocabulary file is saved with it"),
    ("GPT2Tokenizer", None, None, "its constructor's errors='replace' and unk/bos/eos tokens are left to it"),
])
def test_a_folder_autotokenizer_would_build_otherwise_goes_through_it(tmp_path, name, model_type, vocabulary, why):
    if model_type:
        tmp_path.joinpath("config.json").write_text(json.dumps({"model_type": model_type}))
    if vocabulary:
        tmp_path.joinpath(vocabulary).write_text("{}")
    assert _defaults_only_class(folder_with(tmp_path, {"tokenizer_class": name})) is None, why


@pytest.mark.parametrize("config, why", [
    ({"tokenizer_class": "T5Tokenizer"}, "a method of its own (get_sentinel_tokens)"),
    ({"tokenizer_class": "CodeLlamaTokenizer"}, "properties of its own (prefix_token)"),
    ({"tokenizer_class": "WhisperTokenizer"}, "its own decoding"),
    ({"tokenizer_class": "NoSuchTokenizer"}, "a class transformers does not have"),
    ({"tokenizer_class": "GemmaTokenizer", "auto_map": {"AutoTokenizer": ["x.Tok", None]}}, "code to load"),
    ({"tokenizer_class": 3}, "a class name that is no string"),
    ({}, "no class named"),
    ("[1, 2]", "a config that is no object"),
    ("{not json", "a damaged config"),
])
def test_any_other_folder_goes_through_autotokenizer(tmp_path, config, why):
    assert _defaults_only_class(folder_with(tmp_path, config)) is None, why


def test_a_folder_without_tokenizer_json_goes_through_autotokenizer(tmp_path):
    assert _defaults_only_class(folder_with(tmp_path, {"tokenizer_class": "GemmaTokenizer"}, tokenizer_json=False)) is None
