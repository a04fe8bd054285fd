"""The lab's model and runs: tiny-llama as a random RM with a preference planted in one layer's MLP
(:mod:`rmlib.lens.plant`), a word paired with five others, and the two functions a student writes applied to it: one
block's direct attribution (summed over blocks, it is the score), and the share of the gap each block's patch
restores (the largest names the layer that carries the preference). Random weights: a known answer, not a finding."""
from __future__ import annotations

import pandas as pd

from rmlib import lens
from rmlib.lens.blocks import final_norm, norm_eps, norm_gain, run_with, writers
from rmlib.models.tiny import tiny_model

__all__ = ["planted_model", "block_table", "patching_table"]


def planted_model(layer: int = 1, seed: int = 0) -> dict:
    """{model, clean, corrupt, readout, layer}: the planted word (" answer") read at the last position, paired with
    five other one-token words under one prompt."""
    model, tok = tiny_model("llama", "rm", seed=seed)
    words = tok(" answer thing word the one is", add_special_tokens=False).input_ids
    prefix = tok("What is the best thing?").input_ids
    readout = lens.rm_readout(model)
    lens.plant_neuron(model, layer, lens.token_direction(model, words[0]), lens.readout_direction(model, readout))
    return {"model": model, "readout": readout, "layer": layer,
            "clean": lens.batch([prefix + words[:1]] * 5, tok.pad_token_id),
            "corrupt": lens.batch([prefix + [w] for w in words[1:]], tok.pad_token_id)}


def block_table(lab: dict, block_attribution) -> pd.DataFrame:
    """block, attribution: ``block_attribution(block, residual, gain, head, eps)`` on each block's output at the
    clean input's read position; ``attrs['score']`` is the model's own score there."""
    model, (ids, mask, pos) = lab["model"], lab["clean"]
    ws = writers(model)
    seen, logits = run_with(model, ids[:1], mask[:1], record=[w.module for w in ws])
    norm, at = final_norm(model), int(pos[0])
    residual = seen["final"][0, at].numpy()
    gain = norm_gain(norm, residual.shape[0], "cpu").numpy()
    head = lab["readout"].weight[0].numpy()
    rows = [{"block": w.name, "attribution": float(block_attribution(seen[w.module][0, at].numpy(), residual, gain,
                                                                     head, norm_eps(norm)))} for w in ws]
    out = pd.DataFrame(rows)
    out.attrs["score"] = float(logits[0, 0])
    return out


def patching_table(lab: dict, patching_shares) -> pd.DataFrame:
    """block, share: ``patching_shares(patched, corrupt, clean)`` of the first pair, each block's output patched
    from the clean run into the corrupt one (the model's own rewards)."""
    model = lab["model"]
    clean, corrupt = [tuple(t[:1] for t in lab[k]) for k in ("clean", "corrupt")]
    ws = writers(model)
    seen, clean_logits = run_with(model, *clean[:2], record=[w.module for w in ws], final_input=False)
    _, corrupt_logits = run_with(model, *corrupt[:2], final_input=False)
    patched = {}
    for w in ws:
        _, logits = run_with(model, *corrupt[:2], replace={w.module: lambda out, s=seen[w.module]: s},
                             final_input=False)
        patched[w.name] = float(logits[0, 0])
    shares = patching_shares(patched, float(corrupt_logits[0, 0]), float(clean_logits[0, 0]))
    return pd.DataFrame({"block": list(shares), "share": [float(v) for v in shares.values()]})

