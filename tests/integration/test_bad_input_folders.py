"""A saved model folder that is not what rmlib can score (#62, "No wrong number"): a tokenizer larger than the
model's embedding, a sharded checkpoint missing a shard, a head of several outputs, a folder that holds no model.
Each is refused at load with a ModelError naming the folder and what is wrong. tests/README.md has the catalogue."""
from __future__ import annotations

import json
import re

import pytest

from rmlib.cli import main
from rmlib.models import ModelError, load_model

PROMPT = "What, in one word, is the greatest thing ever?"


def _saved(tmp_path, head: str = "rm", **save):
    from rmlib.models.tiny import tiny_model
    model, tok = tiny_model("llama", head=head)
    folder = tmp_path / "folder"
    model.save_pretrained(folder, **save)
    tok.save_pretrained(folder)
    return folder, model


def test_a_tokenizer_larger_than_the_embedding_is_refused_at_load(tmp_path, monkeypatch, capsys):
    """Before: it loaded, and scoring stopped with `IndexError: index out of range in self` (a token id past the
    embedding's 320 rows)."""
    from rmlib.models.tiny import tiny_tokenizer
    folder, _ = _saved(tmp_path)
    big = tiny_tokenizer("llama", vocab_size=400)
    assert len(big) == 400
    big.save_pretrained(folder)
    with pytest.raises(ModelError, match=re.escape(str(folder)) + r".*400 ids.*320 rows") as e:
        load_model(f"local:{folder}", dtype="float32")
    assert "added tokens" in str(e.value) and "input embedding" in str(e.value)
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["sweep", "--model", f"local:{folder}", "--prompt", PROMPT, "--tokens", "0:4"]) == 2
    assert "400 ids" in capsys.readouterr().err


def test_a_sharded_checkpoint_missing_a_shard_names_the_shard(tmp_path):
    """Before: "ships no safetensors weights, only pickle files (.bin/.pt) ...": blamed on pickles."""
    folder, _ = _saved(tmp_path, max_shard_size="100KB")
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) > 2
    (folder / shards[1]).unlink()
    with pytest.raises(ModelError, match=re.escape(str(folder)) + ".*" + re.escape(shards[1])) as e:
        load_model(f"local:{folder}", dtype="float32")
    assert "pickle" not in str(e.value) and "missing" in str(e.value) and shards[0] not in str(e.value)


def test_a_head_of_three_outputs_is_not_taken_for_a_single_score_rm(tmp_path):
    """Before: "the weights do not fit its config (...)", though the config was right: rmlib asked for one label."""
    from transformers import AutoModelForSequenceClassification

    from rmlib.models.tiny import tiny_config, tiny_tokenizer
    tok = tiny_tokenizer("llama")
    cfg = tiny_config("llama", len(tok), tok.pad_token_id)
    cfg.num_labels = 3
    folder = tmp_path / "three"
    AutoModelForSequenceClassification.from_config(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    with pytest.raises(ModelError, match=r"score\.weight.*\(3, 64\).*3 outputs.*one reward") as e:
        load_model(f"local:{folder}", dtype="float32")
    assert "single-score" in str(e.value) and "do not fit" not in str(e.value)


@pytest.mark.parametrize("where", ["empty", "/etc"])
def test_a_folder_that_holds_no_model_says_so_not_that_no_rm_was_trained(where, tmp_path):
    """Before: "no trained RM at /etc (train one with rmlib.train, or check the name/step)" for a path given as
    local:/path, which names a folder, not a training run."""
    folder = tmp_path / "empty" if where == "empty" else where
    if where == "empty":
        folder.mkdir()
    with pytest.raises(ModelError, match=f"{re.escape(str(folder))} holds no model") as e:
        load_model(f"local:{folder}", dtype="float32")
    assert "config.json" in str(e.value) and "train one" not in str(e.value)
    with pytest.raises(ModelError, match="does not exist"):
        load_model(f"local:{tmp_path / 'nowhere'}", dtype="float32")
