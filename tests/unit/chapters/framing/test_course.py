"""The framing exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers, with a
message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

right = reference_solution("framing.halves")


@pytest.mark.parametrize("ex", ["framing.halves", "framing.pattern"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 3


def _slopes(df, oriented=True, intercepts=True):
    df = df.assign(side=np.where(df["valence"] > 0, "positive", "negative"))
    df["o"] = (np.where(df["prompt_valence"] == "positive", 1.0, -1.0) if oriented else 1.0) * df["y"]
    keys = ["prompt_key", "side"] if intercepts else ["side", "prompt_valence"]
    g = df.groupby(keys)
    df["xt"], df["yt"] = df["valence"] - g["valence"].transform("mean"), df["o"] - g["o"].transform("mean")
    s = {c: (d["xt"] * d["yt"]).sum() / (d["xt"] ** 2).sum() for c, d in df.groupby(["side", "prompt_valence"])}
    return {w[0] + p[0]: v for (w, p), v in s.items()}


def _out(h_pos, h_neg, pooled=None):
    return {"pos_prompts": h_pos, "neg_prompts": h_neg, "framing": (h_pos + h_neg) / 2 if pooled is None else pooled}


def unoriented(df):
    s = _slopes(df, oriented=False)
    return _out(s["pp"] - s["np"], s["nn"] - s["pn"])


def pooled_only(df):
    f = right(df)["framing"]
    return _out(f, f, f)


def same_words(df):
    s = _slopes(df)
    return _out(s["pp"] - s["pn"], s["nn"] - s["np"])


def one_intercept_per_cell(df):
    s = _slopes(df, intercepts=False)
    return _out(s["pp"] - s["np"], s["nn"] - s["pn"])


def summed(df):
    h = right(df)
    return _out(h["pos_prompts"], h["neg_prompts"], h["pos_prompts"] + h["neg_prompts"])


def swapped(df):
    h = right(df)
    return _out(h["neg_prompts"], h["pos_prompts"])


@pytest.mark.parametrize("wrong, hint", [(unoriented, "orient the score"), (pooled_only, "pooled contrast as both"),
                                         (same_words, "same words across prompts"),
                                         (one_intercept_per_cell, "its own intercept"), (summed, "is their mean"),
                                         (swapped, "halves are swapped")])
def test_halves_fail_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("framing.halves", wrong)


def test_the_cancelling_case_says_why_a_pooled_contrast_misleads():
    def pooled_where_small(df):  # right on the other cases, the pooled contrast for both halves where they cancel
        return right(df) if abs(right(df)["framing"]) > 0.05 else pooled_only(df)

    with pytest.raises(course.CheckFailed, match="Here they cancel") as e:
        course.check("framing.halves", pooled_where_small)
    assert "cancelling halves" in str(e.value)


right_pattern = reference_solution("framing.pattern")


def at_least_zero(pos, neg):
    state = lambda ci: "holds" if ci[0] >= 0 else "reversed" if ci[1] <= 0 else "unclear"  # noqa: E731
    return right_pattern((1, 1) if state(pos) == "holds" else pos, (1, 1) if state(neg) == "holds" else neg)


def by_the_middle(pos, neg):
    return right_pattern(*((0.1, 0.1) if np.mean(ci) > 0 else (-0.1, -0.1) for ci in (pos, neg)))


def no_opposites(pos, neg):
    got = right_pattern(pos, neg)
    return "neither (both unclear)" if got == "opposite signs" else got


def swapped_arguments(pos, neg):
    return right_pattern(neg, pos)


@pytest.mark.parametrize("wrong, hint", [(at_least_zero, "ends at 0"), (by_the_middle, "spans 0"),
                                         (no_opposites, "averages to about 0|pooled contrast, is near 0"),
                                         (swapped_arguments, "first argument is the positive-prompt half")])
def test_pattern_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("framing.pattern", wrong)
