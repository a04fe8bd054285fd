"""The real embedded models: SmolLM2 sweeps, its RM head, the de-quantised copies, base or instruct from the GGUF metadata."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from rmlib.engine import roundtrip_audit, score_answers, sweep
from rmlib.models import instruct_evidence, load_model
from rmlib.models.evidence import gguf_facts
from rmlib.models.templates import answer_slot
from rmlib.registry import get_spec

PROMPT = "What, in one word, is the greatest thing ever?"


@pytest.mark.embedded
def test_real_smollm2_vocabulary_slice(smollm2_lm, tmp_path):
    lm = smollm2_lm
    assert lm.tokenizer.chat_template and "<|im_start|>" in lm.chat_template
    res = sweep(lm, PROMPT, tokens=range(1000, 1512), cache_root=tmp_path, progress=False)
    df = res.frame
    assert len(df) == 512 and df.token_id.is_unique
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([list(slot.prefix_ids)])).logits[0, -1]
    np.testing.assert_allclose(df.logprob, torch.log_softmax(logits, -1)[1000:1512].numpy(), atol=1e-4)
    words = score_answers(lm, [PROMPT], ["love", "hatred", "The"], cache_root=tmp_path, progress=False)
    assert words.logprob.lt(0).all()
    audit = roundtrip_audit(lm, tokens=range(0, 2000))
    assert audit["id_exact_leading_bos"] <= 1 and 0 <= audit["share_changed"] < 0.5


@pytest.mark.embedded
def test_real_smollm2_rm_head_shared_prefix_is_exact(tmp_path):
    lm = load_model("smollm2-135m-instruct", head="rm", dtype="float32", allow_untrained_head=True)
    res = sweep(lm, PROMPT, tokens=range(5000, 5040), cache_root=tmp_path, progress=False)
    assert res.meta["untrained_head"] is True
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    backbone = lm.model.base_model
    for i, s in zip(res.frame.token_id[:8], res.frame.score[:8]):
        with torch.no_grad():
            h = backbone(input_ids=torch.tensor([slot.ids_for([int(i)])])).last_hidden_state[0, -1]
            assert abs(lm.model.score(h)[0].item() - s) < 1e-4


@pytest.mark.embedded
def test_bf16_dequantized_cache_is_the_fp32_copy_rounded_once():
    from transformers import AutoModelForCausalLM
    from rmlib.models.embedded import dequantized_dir as _dequantized_dir
    from rmlib.registry import get_spec
    spec = get_spec("smollm2-135m-instruct")
    exact = AutoModelForCausalLM.from_pretrained(_dequantized_dir(spec, torch.float32), dtype=torch.bfloat16)
    cached = AutoModelForCausalLM.from_pretrained(_dequantized_dir(spec, torch.bfloat16), dtype=torch.bfloat16)
    a, b = exact.state_dict(), cached.state_dict()
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_embedded_base_and_instruct_checked_from_metadata():
    ev = {m: instruct_evidence(m) for m in ("gemma3-270m", "smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct")}
    assert ev["gemma3-270m"]["verdict"] == "base" and ev["gemma3-270m"]["chat_template_shipped"] is False
    assert ev["smollm2-135m-instruct"]["verdict"] == "instruct" and ev["smollm2-135m-instruct"]["chat_template_shipped"]
    assert ev["qwen2.5-coder-0.5b-instruct"]["verdict"] == "instruct"
    assert "instruct" in ev["qwen2.5-coder-0.5b-instruct"]["gguf_finetune"].lower()


def test_the_gguf_facts_are_read_once_and_a_record_that_does_not_check_out_is_read_again(tmp_path, monkeypatch):
    """gguf's reader parses the whole file (6-25 s each); the facts are kept by the GGUF's sha256 and served only
    when the record names that sha256 and holds the three facts with their types."""
    import gguf

    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    reads = []
    real = gguf.GGUFReader
    readers = []
    monkeypatch.setattr(gguf, "GGUFReader", lambda path: reads.append(path) or readers.append(real(path)) or readers[-1])
    smol = get_spec("smollm2-135m-instruct").gguf
    first = gguf_facts(smol)
    assert first["chat_template_shipped"] is True and first["gguf_finetune"] == "8k-lc100k-mix1-ep2"
    assert gguf_facts(smol) == first and len(reads) == 1   # served from the record
    record = next((tmp_path / "gguf").glob("*.facts.json"))
    kept = record.read_text()
    fields = readers[0].fields   # the damaged records below are read again from these fields (6 s per real read)
    monkeypatch.setattr(gguf, "GGUFReader", lambda path: reads.append(path) or type("R", (), {"fields": fields}))
    for damaged in (kept.replace('"chat_template_shipped": true', '"chat_template_shipped": "yes"'),
                    kept.replace('"sha256": "', '"sha256": "0'), "{not json", "[]"):
        record.write_text(damaged)
        assert gguf_facts(smol) == first
        assert record.read_text() == kept   # read again and rewritten
    assert len(reads) == 5


@pytest.mark.embedded
def test_the_gguf_tokenizer_is_converted_once_and_its_folder_tokenizes_alike(tmp_path, monkeypatch):
    """transformers converts a GGUF's tokenizer by parsing the whole file in Python (5-29 s a load); fine-tuning
    loaded each checkpoint's base tokenizer again. The conversion is kept as a checked tokenizer folder, and that
    folder must tokenize, template and pad exactly as the GGUF's own tokenizer does."""
    import transformers

    from rmlib.models import load_tokenizer
    from rmlib.models.embedded import _gguf_tokenizer, tokenizer_path

    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    spec = get_spec("smollm2-135m-instruct")
    conversions = []
    real = transformers.AutoTokenizer.from_pretrained

    def counting(*args, **kwargs):
        conversions.append(kwargs.get("gguf_file"))
        return real(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", counting)
    first, second = load_tokenizer(spec.id), load_tokenizer(spec.id)
    assert len(conversions) == 1 and conversions[0]  # converted from the GGUF once; the folder is read as saved
    own = _gguf_tokenizer(spec)
    texts = ["Hello world", " love", "<|im_start|>user\nWhat?<|im_end|>", "naïve café 東京 🙂", "  two  spaces\n\n"]
    for tok in (first, second):
        assert tok.get_vocab() == own.get_vocab() and tok.all_special_ids == own.all_special_ids
        assert (tok.pad_token_id, tok.padding_side, tok.chat_template) == \
            (own.pad_token_id, own.padding_side, own.chat_template)
        for text in texts:
            assert tok(text).input_ids == own(text).input_ids
    folder = tokenizer_path(spec)
    (folder / "tokenizer.json").write_text("{}")  # damaged: rebuilt from the GGUF with a warning, never served
    from rmlib.models.base import CacheWarning
    with pytest.warns(CacheWarning, match="failed its check"):
        again = load_tokenizer(spec.id)
    assert again(texts[3]).input_ids == own(texts[3]).input_ids


@pytest.mark.parametrize("model_id", ["smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct"])  # Gemma-3's: 29 s
def test_the_folder_tokenizer_keeps_the_gguf_conversions_pipeline_whole(model_id, tmp_path):
    """Loaded from its folder by its class alone, Qwen2.5's tokenizer put an NFC normalizer in front of the pipeline
    that the GGUF's conversion built and saved, so a decomposed 'é' (and 248 of its token strings) encoded otherwise
    than the GGUF's tokenizer encodes it, and the method chapter's decode→encode count moved from 3,392 to 3,628.
    The loaded tokenizer's pipeline must be the saved one, piece for piece (normalizer, pre-tokenizer, model,
    decoder)."""
    from tokenizers import Tokenizer

    from rmlib.models import load_tokenizer
    from rmlib.models.embedded import tokenizer_dir
    from rmlib.models.files import folder_tokenizer

    saved = Tokenizer.from_file(str(tokenizer_dir(get_spec(model_id)) / "tokenizer.json"))
    loaded = load_tokenizer(model_id)
    assert loaded.backend_tokenizer.to_str() == saved.to_str()
    decomposed = "cafe\u0301 nai\u0308ve"  # not NFC: the GGUF's tokenizer keeps the combining marks
    assert loaded(decomposed, add_special_tokens=False).input_ids == \
        saved.encode(decomposed, add_special_tokens=False).ids
    # a checkpoint's folder (its tokenizer saved by training from this one) is read the same way
    checkpoint = shutil.copytree(tokenizer_dir(get_spec(model_id)), tmp_path / "checkpoint")
    assert folder_tokenizer(checkpoint, "a checkpoint", False).backend_tokenizer.to_str() == saved.to_str()


def _read_by_class(folder):
    """The folder read as at 8d7029f: AutoTokenizer by its class, with the saved pipeline handed in."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder), tokenizer_object=Tokenizer.from_file(str(folder / "tokenizer.json")))


@pytest.mark.parametrize("model_id, named", [("smollm2-135m-instruct", None), ("qwen2.5-coder-0.5b-instruct", None),
                                            ("smollm2-135m-instruct", "GemmaTokenizer"),
                                            ("smollm2-135m-instruct", "LlamaTokenizer")])
def test_a_folder_tokenizer_is_its_class_read_as_saved(model_id, named, tmp_path, monkeypatch):
    """A tokenizer folder whose class adds only defaults is read as saved, then given its class and defaults
    (``rmlib.models.files.saved_tokenizer``), not built by its class's constructor: that rebuilt the whole pipeline
    from the file's vocabulary and merges and then deep-copied the saved one (Gemma-3: 7.7 s a load against 2.0 s,
    #61). It must be the tokenizer the class's constructor gives, in everything a chapter or a saved checkpoint sees:
    class, padding and truncation side (Gemma's class pads on the left, the generic one on the right), the inputs it
    returns, special tokens, chat template, pipeline, encodings of single texts and of a padded batch, and the files
    it saves. ``named``: the folder's config names another class. GemmaTokenizer over SmolLM2's pipeline stands for
    Gemma-3's folder (the same class and defaults; its own 262k-token vocabulary took 31 s here in a clean make
    test, the constructor's rebuild most of it); LlamaTokenizer over a byte-level pipeline, a sentencepiece model
    beside it: AutoTokenizer builds no LlamaTokenizer there, and neither does rmlib, which hands it over."""
    import filecmp

    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    from rmlib.models.embedded import tokenizer_dir
    from rmlib.models.files import folder_tokenizer

    folder = shutil.copytree(tokenizer_dir(get_spec(model_id)), tmp_path / "checkpoint")
    if named:  # as Gemma-3's config does, it names every special token whose default the class would add
        config = json.loads((folder / "tokenizer_config.json").read_text())
        (folder / "tokenizer_config.json").write_text(json.dumps({**config, "tokenizer_class": named,
                                                                  "mask_token": "<mask>"}))
    if named == "LlamaTokenizer":
        (folder / "tokenizer.model").write_bytes(b"a sentencepiece model, copied, never read")
    reference = _read_by_class(folder)
    cls = type(reference)
    built = []
    if cls is not TokenizersBackend:  # a class with its own constructor: it must not run
        own_init = cls.__init__
        monkeypatch.setattr(cls, "__init__", lambda self, *a, **k: (built.append(1), own_init(self, *a, **k))[1])
    loaded = folder_tokenizer(folder, "a checkpoint", False)
    monkeypatch.undo()
    assert built == []
    assert type(loaded) is cls
    for name in ("padding_side", "truncation_side", "model_input_names", "all_special_ids", "all_special_tokens",
                 "chat_template", "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "model_max_length",
                 "added_tokens_decoder", "init_kwargs"):
        assert getattr(loaded, name) == getattr(reference, name), name
    assert loaded.backend_tokenizer.to_str() == reference.backend_tokenizer.to_str()
    texts = ["Hello world", "cafe\u0301 nai\u0308ve", " spaces\tand\nnewlines ", "<|im_start|>user\nhi<|im_end|>",
             "日本語", "🙂 love"]
    for text in texts:
        assert loaded(text).input_ids == reference(text).input_ids
    batch, expected = loaded(texts, padding=True), reference(texts, padding=True)
    assert batch.keys() == expected.keys() and all(batch[k] == expected[k] for k in batch)
    loaded.save_pretrained(tmp_path / "loaded")
    reference.save_pretrained(tmp_path / "reference")
    names = sorted(p.name for p in (tmp_path / "reference").iterdir())
    assert sorted(p.name for p in (tmp_path / "loaded").iterdir()) == names
    assert filecmp.cmpfiles(tmp_path / "loaded", tmp_path / "reference", names, shallow=False)[0] == names
