"""Interventions check the attribution: a preference planted in a known layer is found by the lens and by patching,
and a block whose direct attribution patching refutes is named as such (tiny random models, edited in place)."""
import numpy as np
import pytest

from rmlib.lens.attribution import batch, decompose, rm_readout
from rmlib.lens.blocks import LensError
from rmlib.lens.compare import attribution_vs_patching, gap_by_component
from rmlib.lens.patching import ablate, patch_blocks, patch_residual
from rmlib.lens.plant import orthogonal_direction, plant_neuron, readout_direction, token_direction
from rmlib.models.tiny import tiny_model


def _pairs(tok):
    """The planted word (" answer") at the read position, paired with five other one-token words."""
    words = tok(" answer thing word the one is", add_special_tokens=False).input_ids
    prefix = tok("What is the best thing?").input_ids
    clean = batch([prefix + words[:1]] * 5, tok.pad_token_id)
    corrupt = batch([prefix + [w] for w in words[1:]], tok.pad_token_id)
    return words[0], clean, corrupt


def _compare(model, clean, corrupt):
    readout = rm_readout(model)
    att = gap_by_component(decompose(model, *clean, readout), decompose(model, *corrupt, readout))
    return attribution_vs_patching(att, patch_blocks(model, clean, corrupt, readout))


# Llama and Qwen-2 add each block's output as it is; Gemma norms it first (post-block norms), so a planted neuron's
# write is rescaled to a fixed size there and a random tiny Gemma's attention carries the word as much as the neuron
@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("layer", [0, 1])
def test_a_preference_planted_in_one_layer_is_found_by_the_lens_and_by_patching(family, layer):
    model, tok = tiny_model(family, "rm")
    word, clean, corrupt = _pairs(tok)
    plant_neuron(model, layer, token_direction(model, word), readout_direction(model, rm_readout(model)))
    table, summary = _compare(model, clean, corrupt)
    blocks = table[table["component"] != "embed"].set_index("component")  # swapping the word moves all: not a block
    assert blocks["mean_attribution"].idxmax() == f"L{layer}.mlp"
    assert blocks["mean_patching"].idxmax() == f"L{layer}.mlp"
    assert summary["gap"] > 5 and f"L{layer}.mlp" not in summary["disagree"]


def test_an_unplanted_model_puts_no_preference_in_that_layer():
    model, tok = tiny_model("llama", "rm")
    table, _ = _compare(model, *_pairs(tok)[1:])
    blocks = table[table["component"] != "embed"].set_index("component")
    assert blocks["mean_attribution"].idxmax() != "L1.mlp"  # the planted test's answer is not the model's anyway


def test_an_attribution_that_patching_refutes_is_named():
    """Layer 0's MLP writes a direction the head ignores when the word is there; layer 1's MLP reads that direction
    and writes the one the head reads. Layer 0's direct attribution is ~0, its patching effect is the gap."""
    model, tok = tiny_model("llama", "rm")
    word, clean, corrupt = _pairs(tok)
    u = readout_direction(model, rm_readout(model))
    v = orthogonal_direction(u)
    plant_neuron(model, 0, token_direction(model, word), v, sharpness=3.0, strength=1.0)
    plant_neuron(model, 1, v, u, sharpness=3.0, strength=1.0)
    table, summary = _compare(model, clean, corrupt)
    row = table.set_index("component").loc["L0.mlp"]
    assert abs(row["mean_attribution"]) < 0.05 * abs(summary["gap"])
    assert abs(row["mean_patching"]) > 0.5 * abs(summary["gap"])
    assert "L0.mlp" in summary["disagree"] and bool(row["disagree"])
    assert summary["spearman"]["n"] == 5 and summary["spearman"]["ci_low"] <= summary["spearman"]["rho"]


def test_residual_patching_at_the_read_position_moves_the_whole_gap_after_the_last_layer():
    model, tok = tiny_model("llama", "rm")
    _, clean, corrupt = _pairs(tok)
    out = patch_residual(model, clean, corrupt, rm_readout(model), at="read")
    last = out[out["component"] == "after L1"]["effect"].to_numpy()
    blocks = patch_blocks(model, clean, corrupt, rm_readout(model))
    assert np.allclose(last, blocks.attrs["gap"][:, 0], atol=1e-3)
    answer = patch_residual(model, clean, corrupt, rm_readout(model), at="answer")
    assert set(answer["component"]) == {"after L0", "after L1"}


def test_ablations_of_identical_rows_change_nothing_and_of_different_rows_something():
    model, tok = tiny_model("llama", "rm")
    _, clean, corrupt = _pairs(tok)
    same = ablate(model, clean, rm_readout(model), how="mean")
    assert np.abs(same["effect"]).max() < 1e-4  # the mean of five identical rows is each row
    for how in ("mean", "resample"):
        moved = ablate(model, corrupt, rm_readout(model), how=how)
        assert np.abs(moved.loc[moved["component"] == "embed", "effect"]).max() > 1e-2


def test_inputs_that_cannot_be_patched_are_refused():
    model, tok = tiny_model("llama", "rm")
    _, clean, corrupt = _pairs(tok)
    longer = batch([list(r[:int(m.sum())]) + [5] for r, m in zip(corrupt[0].tolist(), corrupt[1])], tok.pad_token_id)
    with pytest.raises(LensError, match="same shape"):
        patch_blocks(model, clean, longer, rm_readout(model))
    with pytest.raises(LensError, match="'read' or 'answer'"):
        patch_residual(model, clean, corrupt, rm_readout(model), at="everywhere")
    with pytest.raises(LensError, match="'mean' or 'resample'"):
        ablate(model, clean, rm_readout(model), how="zero")
