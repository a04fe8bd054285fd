"""Checks of the framing chapter's exercises: the claim's two halves from four oriented slopes (and why their
average can hide them), and each model's verdict on the halves from their confidence intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.framing.analysis import framing_contrast, framing_halves
from rmbook.course.exercises import close, exercise, expect

PROMPTS = {"best": "positive", "greatest": "positive", "worst": "negative", "terrible": "negative"}
CELLS = {("positive", "positive"): "s_pp", ("positive", "negative"): "s_pn",
         ("negative", "positive"): "s_np", ("negative", "negative"): "s_nn"}  # (word side, prompt valence)

# Planted oriented slopes per cell (first letter: word side, second: prompt valence), and whether the words and the
# prompts' intercepts are balanced. "cancelling halves": h+ = +0.3, h- = -0.3, pooled contrast 0 (a tilt toward
# positive words whatever the prompt).
HALVES_CASES = {
    "both halves hold": ({"s_pp": 0.30, "s_np": 0.10, "s_nn": 0.35, "s_pn": 0.05}, False),
    "cancelling halves": ({"s_pp": 0.40, "s_np": 0.10, "s_nn": 0.10, "s_pn": 0.40}, False),
    "words missing under some prompts": ({"s_pp": 0.20, "s_np": 0.25, "s_nn": 0.30, "s_pn": 0.10}, True),
}


def planted_frame(slopes: dict[str, float], unbalanced: bool, seed: int = 0) -> pd.DataFrame:
    """One model's scores of 24 valenced words under 2 positive and 2 negative prompts: y = sign(prompt) x (an
    intercept per prompt and word side + the cell's oriented slope x valence) + a little noise. ``unbalanced`` drops
    the mildest words under the prompts with the largest intercepts, so a fit without them is off."""
    rng = np.random.default_rng(seed)
    vals = np.r_[np.tile([1.0, 2.0, 3.0, 4.0, 5.0, 3.0], 2), -np.tile([1.0, 2.0, 3.0, 4.0, 5.0, 3.0], 2)]
    rows = []
    for k, (prompt, pv) in enumerate(PROMPTS.items()):
        sign = 1.0 if pv == "positive" else -1.0
        for i, v in enumerate(vals):
            side = "positive" if v > 0 else "negative"
            offset = (1.5 * k if side == "positive" else -1.0 * k) * (3.0 if unbalanced else 0.3)
            if unbalanced and k % 2 == 1 and abs(v) <= 2:
                continue
            oriented = offset + slopes[CELLS[(side, pv)]] * v + rng.normal(0, 0.05)
            rows.append({"model": "planted", "prompt_key": prompt, "prompt_valence": pv, "word": f"w{i}",
                         "word_side": side, "valence": v, "y": sign * oriented})
    df = pd.DataFrame(rows)
    df["oriented_y"] = np.where(df["prompt_valence"] == "positive", 1.0, -1.0) * df["y"]
    return df


def _cell_ols(df: pd.DataFrame, y: str) -> dict[str, float]:
    """The four slopes with one intercept per cell only (none per prompt)."""
    return {CELLS[(s, p)]: float(np.polyfit(g["valence"], g[y], 1)[0])
            for (s, p), g in df.groupby(["word_side", "prompt_valence"])}


def _pair(got) -> tuple[float, float, float]:
    try:
        return tuple(float(got[k]) for k in ("pos_prompts", "neg_prompts", "framing"))
    except (KeyError, TypeError, IndexError, ValueError):
        raise AssertionError from None


@exercise("framing.halves")
def check_halves(two_halves) -> int:
    """``two_halves(df)`` on one model's planted scores must give the halves h+ = s(+,+) − s(−,+), h− = s(−,−) −
    s(+,−) and the pooled contrast (h+ + h−)/2 of :func:`rmbook.chapters.framing.analysis.framing_contrast`."""
    for name, (slopes, unbalanced) in HALVES_CASES.items():
        df = planted_frame(slopes, unbalanced)
        ref = framing_contrast(df, groups=["model"]).iloc[0]
        want = (ref["pos_prompts"], ref["neg_prompts"], ref["framing"])
        raw = two_halves(df[["prompt_key", "prompt_valence", "word", "valence", "y"]].copy())
        try:
            pos, neg, pooled = _pair(raw)
        except AssertionError:
            expect(False, "return a dict with the keys 'pos_prompts' (h+), 'neg_prompts' (h−) and 'framing' "
                          f"(their mean); got {raw!r}")
        got = (pos, neg, pooled)
        if close(got, want, atol=1e-6):
            continue
        said = (f"on {name} your halves are h+ = {pos:.3f}, h− = {neg:.3f} and the pooled contrast {pooled:.3f}; "
                f"they are h+ = {want[0]:.3f}, h− = {want[1]:.3f}, pooled {want[2]:.3f}.")
        unoriented = framing_contrast(df.assign(oriented_y=df["y"]), groups=["model"]).iloc[0]
        per_cell = _cell_ols(df, "oriented_y")
        if close(got[:2], want[:2], atol=1e-6):
            hint = " The halves are right: the pooled contrast is their mean, (h+ + h−) / 2."
        elif close(pos, neg) and close(pos, want[2], atol=1e-6):
            hint = (" You gave the pooled contrast as both halves: compute each half on its own. "
                    + ("Here they cancel: the mean of the halves is near 0 although neither is. "
                       if abs(want[2]) < 0.05 else "") + "A pooled number cannot tell two real, opposite effects "
                    "from no effect.")
        elif close(got[:2], want[1::-1], atol=1e-6):
            hint = " The halves are swapped: pos_prompts is h+ = s(+,+) − s(−,+), the half under positive prompts."
        elif close(got[:2], (ref["pos_words"], ref["neg_words"]), atol=1e-6):
            hint = (" Those compare the same words across prompts (s(+,+) − s(+,−), s(−,−) − s(−,+)). Each half "
                    "compares positive with negative words under prompts of one valence.")
        elif close(got[:2], (unoriented["pos_prompts"], unoriented["neg_prompts"]), atol=1e-6) or \
                (close(pos, want[0], atol=1e-6) and close(neg, -want[1], atol=1e-6)):
            hint = (" h− has the wrong sign: orient the score first (y under positive prompts, −y under negative "
                    "ones), so that following the prompt is up under both; then h− = s(−,−) − s(+,−).")
        elif close(got[:2], (per_cell["s_pp"] - per_cell["s_np"], per_cell["s_nn"] - per_cell["s_pn"]), atol=1e-6):
            hint = (" Those are slopes with one intercept per cell. Every prompt has its own level of scores: give "
                    "each prompt × word side its own intercept (demean valence and the oriented score within "
                    "prompt × word side), then take each cell's slope Σ x̃ỹ / Σ x̃².")
        else:
            hint = (" With ỹ the oriented score and x̃ the valence, both demeaned within prompt × word side, a "
                    "cell's slope is Σ x̃ỹ / Σ x̃² over its rows.")
        expect(False, said + hint)
    return len(HALVES_CASES)


# (positive-prompt half's CI, negative-prompt half's CI) -> the chapter's pattern
PATTERN_CASES = [((0.1, 0.5), (0.2, 0.6)), ((0.2, 0.6), (-0.7, -0.3)), ((-0.5, -0.1), (0.1, 0.4)),
                 ((0.1, 0.3), (-0.2, 0.2)), ((-0.3, 0.1), (0.05, 0.2)), ((-0.4, -0.1), (-0.3, -0.05)),
                 ((-0.4, -0.1), (-0.1, 0.1)), ((-0.1, 0.2), (-0.6, -0.2)), ((-0.2, 0.3), (-0.1, 0.4)),
                 ((0.0, 0.4), (0.1, 0.3)), ((-0.1, 0.5), (-0.6, 0.1))]


def _library_pattern(pos, neg) -> str:
    row = pd.DataFrame({"model": ["m"], "pos_prompts": [np.mean(pos)], "pos_prompts_ci_low": [pos[0]],
                        "pos_prompts_ci_high": [pos[1]], "neg_prompts": [np.mean(neg)],
                        "neg_prompts_ci_low": [neg[0]], "neg_prompts_ci_high": [neg[1]],
                        "framing": [(np.mean(pos) + np.mean(neg)) / 2]})
    return str(framing_halves(row)["pattern"].iloc[0])


def _states(ci) -> str:
    return "holds" if ci[0] > 0 else "reversed" if ci[1] < 0 else "unclear"


@exercise("framing.pattern")
def check_pattern(half_pattern) -> int:
    """``half_pattern(pos_ci, neg_ci)`` must name the pattern :func:`rmbook.chapters.framing.analysis.framing_halves`
    gives."""
    for pos, neg in PATTERN_CASES:
        want = _library_pattern(pos, neg)
        got = half_pattern(pos, neg)
        if got == want:
            continue
        said = f"for h+ with CI {pos} and h− with CI {neg} you said {got!r}; the chapter's pattern is {want!r}."
        hint = ""
        if got == _library_pattern(neg, pos):
            hint = " The first argument is the positive-prompt half (h+), the second the negative-prompt half (h−)."
        elif 0.0 in (pos[0], pos[1], neg[0], neg[1]):
            hint = " A CI that ends at 0 does not exclude 0: a half holds only when its low end is above 0."
        elif want == "opposite signs":
            hint = (" One half holds and the other is reversed: a fixed tilt toward one kind of word whatever the "
                    "prompt. Their average, the pooled contrast, is near 0 here, which is why the chapter names the "
                    "pattern instead of averaging.")
        elif any(_states(ci) == "unclear" for ci in (pos, neg)):
            hint = (" A half whose CI spans 0 is unclear, whichever side its middle is on: it holds only when the "
                    "whole CI is above 0, and is reversed only when it is all below.")
        expect(False, said + hint)
    return len(PATTERN_CASES)
