"""A reward lens (layer 4): where in a network a reward model's preference is written, checked by intervention.

* ``blocks.py``: the modules that write a decoder's residual stream (embedding, each attention and MLP block) and
  the hooks that record or replace their outputs (plain PyTorch hooks: why, in its docstring);
* ``heads.py``: an attention block's part split head by head (each head through the output projection);
* ``attribution.py``: a reward (an RM's score, or an LM's logit of candidate tokens) split into each block's direct
  contribution through the final norm with its scale frozen, and the reward lens after each layer;
* ``inputs.py``: the conversations the lens reads, built as the engine builds them (one answer slot per prompt);
* ``patching.py``: activation patching between paired inputs (per block, and the residual per layer) and mean- and
  resample-ablation;
* ``plant.py``: a preference planted in one MLP neuron of a known layer (the tests' and the lab's known answer);
* ``compare.py``: each block's attribution beside its patching effect, with a rank correlation, intervals over
  pairs, and the blocks where the two disagree named.

Torch loads when a name is first used (:mod:`rmlib.lazy`).
"""
from rmlib.lazy import lazy_face

_WHERE = {
    **dict.fromkeys(["LensError", "Writer", "writers", "component_names", "layer_modules", "run_with"], "blocks"),
    **dict.fromkeys(["Readout", "Decomposition", "rm_readout", "lm_readout", "batch", "decompose"], "attribution"),
    **dict.fromkeys(["conversation_ids", "prompt_ids", "single_tokens"], "inputs"),
    **dict.fromkeys(["reward", "patch_blocks", "patch_residual", "ablate"], "patching"),
    **dict.fromkeys(["gap_by_component", "attribution_vs_patching"], "compare"),
    **dict.fromkeys(["head_parts"], "heads"),
    **dict.fromkeys(["token_direction", "readout_direction", "orthogonal_direction", "plant_neuron"], "plant"),
}
__getattr__, __dir__ = lazy_face(__name__, _WHERE)

__all__ = sorted(_WHERE)
