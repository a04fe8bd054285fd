"""Checks of the reward-lens lab: the direct attribution of one block through the final norm with its clean scale
(and that the blocks' attributions sum to the score), and the share of a pair's gap that patching each block
restores (how the lab finds the layer that carries a planted preference)."""
from __future__ import annotations

import numpy as np

from rmbook.course.exercises import close, exercise, expect

EPS = 1e-5


def _case(seed: int, n_blocks: int, scale: float):
    """A planted residual stream: block outputs that sum to the final residual, a norm gain and a head."""
    rng = np.random.default_rng(seed)
    blocks = rng.normal(0, scale, (n_blocks, 8))
    return blocks, blocks.sum(0), rng.uniform(0.5, 2.0, 8), rng.normal(0, 1, 8)


CASES = {"five blocks": _case(0, 5, 1.0), "a residual of tiny values (where eps matters)": _case(1, 3, 1e-3),
         "one block": _case(2, 1, 2.0)}


def reference_attribution(block, residual, gain, head, eps=EPS) -> float:
    return float(head @ (gain * block) / np.sqrt(np.mean(residual ** 2) + eps))


def _attribution_hint(got, block, residual, gain, head) -> str:
    if close(got, float(head @ (gain * block) / np.sqrt(np.mean(block ** 2) + EPS))):
        return ("You normed the block by its own size: the scale is the clean run's, 1 / rms of the whole final "
                "residual, the same for every block, which is what makes the parts add up.")
    if close(got, float(head @ block / np.sqrt(np.mean(residual ** 2) + EPS))):
        return "The norm multiplies by its gain before the head reads it: head · (gain * block) * scale."
    if close(got, float(head @ (gain * block) / np.sqrt(np.mean(residual ** 2)))):
        return "Keep the norm's eps inside the square root: rms = sqrt(mean(x²) + eps)."
    return ""


@exercise("reward_lens.block_attribution")
def check_block_attribution(block_attribution) -> int:
    """``block_attribution(block, residual, gain, head, eps)``: one block's direct contribution to the score."""
    for name, (blocks, residual, gain, head) in CASES.items():
        score = float(head @ (gain * residual) / np.sqrt(np.mean(residual ** 2) + EPS))
        parts = []
        for i, block in enumerate(blocks):
            want = reference_attribution(block, residual, gain, head)
            got = block_attribution(block.copy(), residual.copy(), gain.copy(), head.copy(), EPS)
            expect(np.ndim(got) == 0, f"return one number, got {got!r}")
            expect(close(got, want, rtol=1e-5), f"on {name}, block {i}: you give {float(got):.6g}, it is {want:.6g}. "
                   f"{_attribution_hint(got, block, residual, gain, head)}".rstrip())
            parts.append(float(got))
        expect(close(sum(parts), score, rtol=1e-5), f"on {name} the blocks' attributions sum to {sum(parts):.6g}, "
                                                     f"not the score {score:.6g}")
    return len(CASES)


PATCH_CASES = {
    "the preference in L1.mlp": ({"embed": 3.0, "L0.attn": 1.2, "L0.mlp": 1.1, "L1.attn": 1.3, "L1.mlp": 2.9}, 1.0, 3.0),
    "a negative gap": ({"embed": -4.0, "L0.attn": -1.0, "L0.mlp": -3.5, "L1.attn": -1.1, "L1.mlp": -1.2}, -1.0, -4.0),
}


def reference_shares(patched: dict, corrupt: float, clean: float) -> dict:
    return {b: (r - corrupt) / (clean - corrupt) for b, r in patched.items()}


@exercise("reward_lens.patching_shares")
def check_patching_shares(patching_shares) -> int:
    """``patching_shares(patched, corrupt, clean)``: {block: the share of the clean − corrupt gap its patch restores}."""
    for name, (patched, corrupt, clean) in PATCH_CASES.items():
        want = reference_shares(patched, corrupt, clean)
        got = patching_shares(dict(patched), corrupt, clean)
        expect(isinstance(got, dict) and set(got) == set(patched),
               f"return a dict with one share per block {sorted(patched)}, got {got!r}")
        if all(close(got[b], want[b]) for b in want):
            continue
        hint = ""
        if all(close(got[b], patched[b] - corrupt) for b in want):
            hint = "Divide by the gap (clean − corrupt): a share is comparable across pairs and models."
        elif all(close(got[b], -want[b]) for b in want):
            hint = "The effect is patched − corrupt: how far the patch moves the corrupt run toward the clean one."
        elif all(close(got[b], patched[b] / clean) for b in want):
            hint = "A share of the gap, not of the clean reward: (patched − corrupt) / (clean − corrupt)."
        expect(False, f"on {name}: you give {got}, the shares are {want}. {hint}".rstrip())
    return len(PATCH_CASES)
