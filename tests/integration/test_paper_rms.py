"""The 10 paper RMs load and score through the one hub path, on tiny checkpoints in their published layouts.

No hub and no remote code: each checkpoint (tests/integration/paper_layouts.py) sits in a Hugging Face cache folder
at the registry's revision, and rmlib reads it as it would read the real one. Scores must equal an independent
reference (an eager forward of each whole conversation and the head's math written out in the test) on every token
of the tiny vocabulary, by the shared-prefix path and the full path; a planted error in the gating position or in
the output read is caught by the same comparison.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.integration import paper_layouts as pl
from rmlib.engine import sweep
from rmlib.engine.kernels import rm_scores_paper
from rmlib.models import ModelError, load_model
from rmlib.models.reward_heads import RewardHead
from rmlib.models.templates import answer_slot
from rmlib.registry import registry

PROMPT = "What, in one word, is the greatest thing ever?"
TOL = 1e-5  # float32, on the scale of the scores (float32 resolves ~1e-7 of a value: a score of 30 is 3e-6 apart)


def assert_close(got, ref, tol=TOL):
    got, ref = np.asarray(got, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    np.testing.assert_allclose(got, ref, atol=tol * max(1.0, float(np.abs(ref).max())), rtol=0)


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An offline hub whose cache holds what a test writes into it."""
    import huggingface_hub.constants as constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "rmlib"))
    return cache


def test_a_load_served_from_the_cache_asks_the_hub_nothing(hub_cache, monkeypatch):
    """Offline, every file comes from the cache: transformers' adapter lookup must not go to the hub (it ignored
    local_files_only there and retried for 23 s per load on a machine without network)."""
    import huggingface_hub.errors
    import huggingface_hub.file_download as fd

    asked = []

    def no_network(url, *args, **kwargs):
        asked.append(url)
        raise huggingface_hub.errors.OfflineModeIsEnabled(f"the test refuses {url}")

    monkeypatch.setattr(fd, "get_hf_file_metadata", no_network)
    lm, _ = _load(hub_cache, "Ray2333/GRM-gemma2-2B-rewardmodel-ft")
    assert lm.model is not None
    assert asked == []


def _load(hub_cache, hub_id, reader=None, **kw):
    spec = registry()[hub_id]
    tensors = pl.hub_cache_checkpoint(hub_cache, hub_id, spec.revision, **kw)
    lm = load_model(hub_id, dtype="float32", device="cpu", score_reader=reader)
    return lm, tensors


def _scores(lm, tmp_path, method, **kw):
    return sweep(lm, PROMPT, method=method, cache_root=tmp_path / method, progress=False, **kw).frame


def test_the_registry_covers_every_paper_rm_and_none_needs_remote_code():
    hub = {k for k, s in registry().items() if s.source == "hub"}
    assert hub == set(pl.LAYOUTS)
    assert not [k for k in hub if registry()[k].trust_remote_code]


@pytest.mark.parametrize("hub_id", sorted(pl.LAYOUTS))
def test_paper_rm_scores_equal_the_reference_on_every_token(hub_id, hub_cache, tmp_path):
    lm, tensors = _load(hub_cache, hub_id)
    assert lm.reader == registry()[hub_id].score
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    shared, full = _scores(lm, tmp_path, "shared_prefix"), _scores(lm, tmp_path, "full")
    assert shared.attrs["rmlib"]["method"] == "shared_prefix" and len(shared) == len(lm.tokenizer)
    ref = pl.reference_scores(hub_id, tensors, slot, shared.token_id, lm.reader).numpy()
    assert ref.std() > 0.05  # the comparison is not between constants
    assert_close(shared.score, ref)
    assert_close(full.score, ref)


@pytest.mark.parametrize("hub_id", [pl.ARMO, pl.QRM_GEMMA, pl.URM])
def test_native_heads_are_batch_invariant_and_paper_mode_reads_the_same_head(hub_id, hub_cache, tmp_path):
    lm, tensors = _load(hub_cache, hub_id)
    frames = [sweep(lm, PROMPT, tokens=range(40), batch_size=bs, cache_root=tmp_path / str(bs), progress=False).frame
              for bs in (1, 7, 40)]
    for f in frames[1:]:
        assert_close(frames[0].score, f.score)
    # the paper pipeline (decode, re-render, re-tokenise: a second BOS included) reads the same head on what it
    # tokenised, the last token and the gate found as the authors' code finds them
    ordinary = [i for i in range(len(lm.tokenizer)) if lm.tokenizer.decode([i]).strip().isalpha()][:40]
    texts = lm.tokenizer.batch_decode([[i] for i in ordinary])
    scores, seqs = rm_scores_paper(lm, PROMPT, texts)
    assert sum(s[:2] == [lm.tokenizer.bos_token_id] * 2 for s in seqs) == 40
    assert_close(scores.numpy(), pl.reference_scores(hub_id, tensors, None, None, lm.reader, seqs=seqs))


@pytest.mark.parametrize("hub_id", [pl.ARMO, pl.QRM_LLAMA, pl.QRM_GEMMA, pl.URM])
def test_paper_mode_reads_the_native_heads_where_the_authors_code_does(hub_id, hub_cache, tmp_path):
    """#40 item 2: the authors' heads read the token before a row's first pad; for the answer that is the pad token
    itself that is the token before the answer, not the conversation's real last token (which paper mode read)."""
    lm, tensors = _load(hub_cache, hub_id)
    pad = lm.model.config.pad_token_id
    texts = lm.tokenizer.batch_decode([[pad], [40]])
    scores, seqs = rm_scores_paper(lm, PROMPT, texts)
    first_pad = seqs[0].index(pad)
    assert first_pad < len(seqs[0]) - 1
    before_pad = pl.reference_scores(hub_id, tensors, None, None, lm.reader, seqs=seqs,
                                     read_at=[first_pad - 1, len(seqs[1]) - 1])
    whole = pl.reference_scores(hub_id, tensors, None, None, lm.reader, seqs=seqs)
    assert abs(float(whole[0]) - float(before_pad[0])) > 100 * TOL  # the two readings are told apart
    assert float(whole[1]) == float(before_pad[1])
    assert_close(scores.numpy(), before_pad.numpy())


def test_urm_offers_its_own_gated_reward_beside_the_papers_column_0(hub_cache, tmp_path):
    column0, tensors = _load(hub_cache, pl.URM)
    gated = load_model(pl.URM, dtype="float32", device="cpu", score_reader="urm_gated")
    assert (column0.reader, gated.reader) == ("urm_column0", "urm_gated")
    slot = answer_slot(gated.tokenizer, PROMPT, gated.chat_template)
    a = _scores(gated, tmp_path / "g", "shared_prefix")
    ref = pl.reference_scores(pl.URM, tensors, slot, a.token_id, "urm_gated").numpy()
    assert_close(a.score, ref)
    b = _scores(column0, tmp_path / "c", "shared_prefix")
    assert a.attrs["rmlib"]["key"] != b.attrs["rmlib"]["key"]  # two readers never share a cache entry
    assert np.abs(a.score.to_numpy() - b.score.to_numpy()).max() > 100 * TOL  # reading the wrong output is caught
    with pytest.raises(ModelError, match="offers the score readers"):
        load_model(pl.URM, dtype="float32", device="cpu", score_reader="armo_gated")


@pytest.mark.parametrize("hub_id", [pl.ARMO, pl.QRM_LLAMA, pl.QRM_GEMMA])
def test_a_gate_off_by_one_is_caught(hub_id, hub_cache, tmp_path, monkeypatch):
    lm, tensors = _load(hub_cache, hub_id)
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    right = lm.reward_head.gate_index(slot.ids_for([5]))
    assert right == pl.gate_position(slot.prefix_ids, lm.tokenizer, pl.LAYOUTS[hub_id][0]) == len(slot.prefix_ids) - len(
        lm.reward_head.pattern)
    ref = pl.reference_scores(hub_id, tensors, slot, range(64), lm.reader).numpy()
    original = RewardHead.gate_indices
    monkeypatch.setattr(RewardHead, "gate_indices", lambda self, prefix, seqs: [j - 1 for j in original(self, prefix, seqs)])
    planted = _scores(lm, tmp_path, "shared_prefix", tokens=range(64))
    assert np.abs(planted.score.to_numpy() - ref).max() > 100 * TOL


def test_qrm_without_a_stored_transform_reads_the_identity_and_a_wrong_layout_is_refused(hub_cache, tmp_path):
    lm, tensors = _load(hub_cache, pl.QRM_LLAMA, transform=False)
    assert torch.equal(lm.model.reward_transform_matrix.float(), torch.eye(19))
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    got = _scores(lm, tmp_path, "shared_prefix", tokens=range(64))
    assert_close(got.score, pl.reference_scores(pl.QRM_LLAMA, tensors, slot, range(64), lm.reader))
    # ArmoRM's layout under QRM's config fields: head tensors left over and missing, refused before any score
    folder = hub_cache / f"models--{pl.ARMO.replace('/', '--')}" / "snapshots" / registry()[pl.ARMO].revision
    pl.write_checkpoint(folder, pl.ARMO)
    import json
    cfg = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**cfg, "num_quantiles": 19}))
    with pytest.raises(ModelError, match="do not fit rmlib's native QRMLlama"):
        load_model(pl.ARMO, dtype="float32", device="cpu")


def test_native_heads_stay_float32_when_the_backbone_runs_in_bfloat16(hub_cache):
    pl.hub_cache_checkpoint(hub_cache, pl.ARMO, registry()[pl.ARMO].revision)
    lm = load_model(pl.ARMO, dtype="bfloat16", device="cpu")
    assert lm.model.model.embed_tokens.weight.dtype == torch.bfloat16
    assert lm.model.regression_layer.weight.dtype == torch.float32
    assert lm.model.gating.layers[0].weight.dtype == torch.float32


def test_gemma2_soft_capping_bites_and_the_shared_prefix_keeps_it(hub_cache, tmp_path):
    """In the tiny config the cap of 50 never binds; scaled queries and keys make it bind, so removing it must move
    the scores by far more than the tolerance, while rmlib's shared-prefix scores still equal the capped eager
    forward."""
    hub_id = "Ray2333/GRM-gemma2-2B-rewardmodel-ft"
    spec = registry()[hub_id]
    tensors = pl.hub_cache_checkpoint(hub_cache, hub_id, spec.revision, softcap=2.0)
    folder = next((hub_cache / f"models--{hub_id.replace('/', '--')}" / "snapshots").iterdir())
    from safetensors.torch import save_file
    for k in list(tensors):
        if k.endswith(("q_proj.weight", "k_proj.weight")):
            tensors[k] = tensors[k] * 6.0
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    lm = load_model(hub_id, dtype="float32", device="cpu")
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    got = _scores(lm, tmp_path, "shared_prefix").score.to_numpy()
    capped = pl.reference_scores(hub_id, tensors, slot, range(len(got)), "logits0", softcap=2.0).numpy()
    uncapped = pl.reference_scores(hub_id, tensors, slot, range(len(got)), "logits0", softcap=None).numpy()
    assert_close(got, capped)
    assert np.abs(uncapped - capped).max() > 100 * TOL


def test_a_random_native_rm_keeps_its_head_in_float32_and_scores():
    """gpu_check builds full-size native RMs with random weights: their heads are float32, as a load keeps them."""
    from transformers import LlamaConfig

    from rmlib.models.native_rms import random_native_rm

    cfg = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                      num_key_value_heads=1, num_objectives=19, gating_hidden_dim=16, gating_n_hidden=3)
    model = random_native_rm("LlamaForRewardModelWithGating", cfg, dtype=torch.bfloat16)
    assert model.model.embed_tokens.weight.dtype == torch.bfloat16
    assert {p.dtype for n, p in model.named_parameters() if not n.startswith("model.")} == {torch.float32}
    h = torch.randn(3, 32, dtype=torch.bfloat16)
    assert model.reward_from_hidden(h, h).shape == (3,)


@pytest.mark.parametrize("hub_id", [pl.ARMO, pl.QRM_GEMMA, pl.URM])
def test_gcg_differentiates_the_native_heads_reward(hub_id, hub_cache, tmp_path):
    """GCG's one-hot path reads the same head as the kernels (ArmoRM's gate from the prompt's hidden states), and
    the three-token response's reward equals an eager forward of the whole conversation."""
    from rmlib.engine.gcg.objective import Objective

    lm, tensors = _load(hub_cache, hub_id)
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    obj = Objective(lm, slot, "max")
    ids = (40, 41, 42)
    one_hot = torch.nn.functional.one_hot(torch.tensor(ids), lm.model.get_input_embeddings().weight.shape[0]).float()
    one_hot.requires_grad_(True)
    value = obj.reward_of_one_hot(one_hot)
    (grad,) = torch.autograd.grad(value, one_hot)
    ref = pl.reference_scores(hub_id, tensors, None, None, lm.reader, seqs=[slot.ids_for(list(ids))])
    assert_close([float(value)], ref.numpy())
    assert_close(obj.rewards([ids]), ref.numpy())
    assert float(grad.abs().sum()) > 0


# ---------------------------------------------------------------- a layout mismatch before any download (#40 item 4)

def _headers(tensors: dict):
    """What get_safetensors_metadata returns for one safetensors file holding ``tensors`` (names and shapes)."""
    from huggingface_hub.utils import SafetensorsFileMetadata, SafetensorsRepoMetadata, TensorInfo

    infos = {k: TensorInfo(dtype="F32", shape=list(v.shape), data_offsets=(0, 0)) for k, v in tensors.items()}
    return SafetensorsRepoMetadata(metadata=None, sharded=False, weight_map=dict.fromkeys(tensors, "model.safetensors"),
                                   files_metadata={"model.safetensors": SafetensorsFileMetadata(metadata={},
                                                                                               tensors=infos)})


@pytest.fixture
def reachable_hub_without_weights(tmp_path, monkeypatch):
    """A hub that answers (the probe is faked; every real connection fails at once) and a cache holding QRM-Gemma's
    config.json and tokenizer at the pinned commit, not its weights."""
    import socket

    import huggingface_hub
    import huggingface_hub.constants as constants
    from rmlib.models import hub
    from rmlib.models.tiny import tiny_tokenizer

    def no_network(*a, **k):
        raise OSError("no network in this test")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "rmlib"))
    monkeypatch.setattr(hub, "_hub_unreachable", lambda *a: None)
    monkeypatch.setattr(hub, "_tokenizer", lambda spec, trust: tiny_tokenizer("gemma2"))  # no listing of the repo
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    tensors = pl.hub_cache_checkpoint(tmp_path / "hub", pl.QRM_GEMMA, registry()[pl.QRM_GEMMA].revision)
    snapshot = tmp_path / "hub" / f"models--{pl.QRM_GEMMA.replace('/', '--')}" / "snapshots" / \
        registry()[pl.QRM_GEMMA].revision
    (snapshot / "model.safetensors").unlink()
    served = {}
    monkeypatch.setattr(huggingface_hub, "get_safetensors_metadata",
                        lambda repo_id, revision=None, **k: _headers(served["tensors"]))
    return tensors, served


def test_an_inferred_layout_that_does_not_fit_is_refused_before_the_weights_are_downloaded(
        reachable_hub_without_weights):
    """QRM-Gemma-2-27B's head layout is inferred (registry head_layout); a differing published layout is refused from
    the safetensors headers, not after downloading 54 GB."""
    from rmlib.models.devices import empty_model
    from rmlib.models.layout import check_layout_before_download, layout_gaps
    from rmlib.models.native_rms import QRMGemma2
    from transformers import AutoConfig

    tensors, served = reachable_hub_without_weights
    spec = registry()[pl.QRM_GEMMA]
    assert spec.head_layout == "inferred" and registry()[pl.ARMO].head_layout == "read"
    config = AutoConfig.from_pretrained(pl.QRM_GEMMA, revision=spec.revision)
    served["tensors"] = tensors
    check_layout_before_download(spec, QRMGemma2, config)  # the published layout fits: nothing to say
    shapes = {k: tuple(v.shape) for k, v in tensors.items()}
    assert layout_gaps(empty_model(QRMGemma2, config), shapes) == {"missing": [], "unexpected": [], "other shape": []}
    # the published head had a transform matrix and no Dropout between its blocks (QRM-Llama's layout)
    planted = {k: v for k, v in tensors.items() if not k.startswith("gating.layers.")}
    planted["reward_transform_matrix"] = torch.eye(5)
    planted.update({f"gating.layers.{i}.weight": torch.zeros(3) for i in (3, 6)})
    served["tensors"] = planted
    with pytest.raises(ModelError, match=r"refused before downloading its weights: .*native QRMGemma2, whose layout "
                                         r"was inferred .*missing: gating\.layers\.0\.weight.*unexpected: .*"
                                         r"reward_transform_matrix"):
        load_model(pl.QRM_GEMMA, dtype="float32", device="cpu")


@pytest.mark.parametrize("hub_id, says", [(pl.QRM_GEMMA, "layout INFERRED"), (pl.ARMO, "layout read from the "
                                                                                      "published code")])
def test_rmlib_check_says_whether_a_native_head_was_read_or_inferred(hub_id, says, hub_cache):
    from rmlib.engine.preflight import check_load

    lm, _ = _load(hub_cache, hub_id)
    assert says in check_load(lm, None).detail


@pytest.mark.parametrize("hub_id, dtype", [(pl.ARMO, "bfloat16"), (pl.QRM_LLAMA, "bfloat16"),
                                           (pl.QRM_GEMMA, "bfloat16"), (pl.URM, "bfloat16"), (pl.URM, "float16"),
                                           ("Skywork/Skywork-Reward-Gemma-2-27B", "bfloat16")])
def test_the_real_kernels_pass_the_agreement_checks_on_the_paper_layouts_in_low_precision(hub_id, dtype, hub_cache):
    """#40 item 3: bf16/fp16 within its rounding bound, and the same weights in float32 (heads kept in float32 by the
    load come back as they were) within 1e-3 sd. URM in bf16 or fp16, its paper dtype, failed before: its float32
    head was given the backbone's half-precision hidden state."""
    from rmlib.engine.preflight import preflight

    pl.hub_cache_checkpoint(hub_cache, hub_id, registry()[hub_id].revision)
    lm = load_model(hub_id, dtype=dtype, device="cpu")
    dtypes = {k: t.dtype for k, t in lm.model.state_dict().items()}
    got = {r.check: r for r in preflight(lm, timing_tokens=16)}
    for name in ("shared prefix = full", "batch invariance", "shared prefix = full (float32)",
                 "batch invariance (float32)"):
        assert got[name].status == "PASS", got[name].detail
    assert got["shared prefix = full (float32)"].values["diff_sd"] < 1e-4
    assert {k: t.dtype for k, t in lm.model.state_dict().items()} == dtypes
