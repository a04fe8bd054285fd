"""rmbook.chapters.framing.results: the chapter's results built section by section from small planted frames (two
models, two lexicons, the halves counted by the library), stored and read back."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.framing import analysis as framing
from rmbook.chapters.framing import sources as fs
from rmbook.chapters.framing import results
from rmbook.results import read_results, write_results


def _contrast(pos: tuple[float, float], neg: tuple[float, float]) -> pd.DataFrame:
    """Two models' halves: each model's estimate with a CI of ±0.1."""
    rows = []
    for label, p, n in zip(("m1", "m2"), pos, neg):
        rows.append({"label": label, "pos_prompts": p, "pos_prompts_ci_low": p - .1, "pos_prompts_ci_high": p + .1,
                     "neg_prompts": n, "neg_prompts_ci_low": n - .1, "neg_prompts_ci_high": n + .1,
                     "framing": (p + n) / 2, "n_words": 30})
    return pd.DataFrame(rows)


@pytest.fixture
def pieces() -> dict:
    scores = pd.DataFrame({"level": "word", "model": ["m2", "m1"] * 4, "reward_kind": "RM score",
                           "prompt_key": ["p1", "p1", "p2", "p2", "n1", "n1", "n2", "n2"],
                           "prompt": "a prompt", "prompt_valence": ["positive"] * 4 + ["negative"] * 4,
                           "word": "good", "reward": 1.0})
    contrasts = {"afinn": _contrast((0.5, 0.4), (-0.5, 0.0)), "warriner": _contrast((0.5, 0.4), (0.3, 0.3))}
    frames = {s: pd.DataFrame({"word": [f"w{i}" for i in range(30 + 10 * j)]}) for j, s in enumerate(contrasts)}
    halves = framing.framing_halves(contrasts["afinn"], label="label")
    summary = framing.framing_halves_summary(halves)
    cells = pd.DataFrame({"model": ["m1", "m2"] * 4, "prompt_key": ["p1", "p1", "p2", "p2", "n1", "n1", "n2", "n2"],
                          "half": ["pos_prompts"] * 4 + ["neg_prompts"] * 4,
                          "congruent_steeper": [True, True, True, False, False, False, True, False]})
    by_half = cells.groupby("half").agg(n_congruent_steeper=("congruent_steeper", "sum"),
                                        n_cells=("congruent_steeper", "size"))
    drivers = {"summaries": {s: framing.framing_halves_summary(framing.framing_halves(c, label="label"))
                             for s, c in contrasts.items()},
               "drivers": {s: pd.DataFrame({"half": ["neg_prompts"], "direction": ["pulls down"], "word": ["w0"],
                                            "valence": [-5.0], "mean_y": [-1.5]}) for s in contrasts},
               "weak": "neg_prompts", "down": pd.DataFrame({"word": ["w0", "w1"], "mean_y": [-1.5, 0.2]}),
               "extreme": pd.DataFrame({"word": ["w0", "w1"], "afinn": [-5.0, 2.0], "afinn_extreme": [0.0, 0.4],
                                        "warriner_extreme": [0.2, 0.6]}),
               "worst_named": ["w2"], "named_extreme": pd.DataFrame({"afinn_extreme": [0.5], "warriner_extreme": [0.1]})}
    scores.attrs["coverage"] = {}
    outcome = fs.halves_outcome(summary)
    top = {"positive": (["a"], ["b"]), "negative": (["c"], ["d"])}
    words = pd.DataFrame({"word": ["w0", "w1", "w2"], "word_side": ["negative", "positive", "positive"]})
    sections = dict(scored=results.scored(scores.assign(dictionary="big2"), "published"),
                    coverage=results.coverage({"afinn": words, "warriner": words}),
                    slopes=results.slopes(contrasts["afinn"].assign(s_pp=[.1, .3], s_np=0.0, s_nn=0.0, s_pn=0.0), "SD"),
                    halves_found=results.halves_found(summary, by_half, outcome, contrasts["afinn"], unit="SD",
                                                      main="afinn"),
                    disagreement=results.disagreement(drivers), top_words=results.top_words(top, "published"))
    return dict(main="afinn", scores=scores, prompts=fs.prompt_valences(scores), frames=frames, contrasts=contrasts,
                halves=halves, by_half=by_half, cells=cells, drivers=drivers, sections=sections)


def _results(mode, response, sections, **pieces):
    return results.chapter_results(mode, response, **pieces, **sections)


def test_the_results_of_planted_frames_are_typed_and_read_back(pieces, tmp_path):
    res = _results("published", "z", **pieces)
    assert res.level == "word" and res.models == ["m1", "m2"] and res.prompts == ["p1", "p2", "n1", "n2"]
    assert res.n_words == {"afinn": 30, "warriner": 40} and len(res.contrast["afinn"]) == 2
    found = res.halves_found
    assert found.summary == res.halves_by_source["afinn"]
    assert found.summary.pos_prompts.holds == 2 and found.summary.neg_prompts.reversed == 1
    assert found.summary.patterns == {"opposite signs": 1, "positive-prompt half only": 1}
    assert res.halves_by_source["warriner"].neg_prompts.holds == 2
    # 1 of 2 models reversed is half, short of the 75% that failing needs as holding does (#38)
    assert found.outcome == {"pos_prompts": "holds", "neg_prompts": "mixed"}
    assert (found.pos_congruent_steeper, found.pos_cells, found.neg_congruent_steeper, found.neg_cells) == (3, 4, 1, 4)
    assert found.opposite_signs and (found.framing_min, found.framing_max) == pytest.approx((0.0, 0.2))
    pos = next(c for c in res.cell_counts_by_half if c.half == "pos_prompts")
    assert (pos.n_congruent_steeper, pos.n_cells) == (3, 4) and len(res.cells) == 8
    assert res.weak_half == "neg_prompts" and res.influential_words["afinn"][0]["word"] == "w0"
    assert (res.scored.n_models, res.scored.n_prompts, res.scored.n_words, res.scored.n_big2) == (2, 4, 1, 1)
    assert (res.coverage.n_positive, res.coverage.n_negative, res.coverage.others) == (2, 1, {"warriner": 3})
    assert res.slopes.s_pp == pytest.approx(0.2) and res.slopes.n_models == 2
    why = res.disagreement
    assert (why.weak_prompts, why.weak_holds, why.weak_holds_other, why.n) == ("negative prompts", 0, {"warriner": 2}, 2)
    assert why.below_mean == ["w0"] and not why.all_below_mean  # w1's +0.2 is not below the mean
    assert why.neg_extreme == {"afinn": 0.0, "warriner": 0.2}  # only the negative word w0
    assert why.named_extreme == {"afinn": 0.5, "warriner": 0.1} and why.worst_named == ["w2"]
    assert res.top_words.published and res.top_words.neg_lowest == ["d"]
    write_results(res, tmp_path)
    assert read_results("framing", tmp_path, results.FramingResults) == res


def test_the_compute_level_and_the_positive_half_sections():
    scores = pd.DataFrame({"model": ["lm", "rm"], "prompt_key": ["p1", "p1"], "reward_kind": ["LM log-prob", "RM"]})
    scores.attrs["coverage"] = {"lm": 0.5, "rm": 0.25}
    s = results.scored(scores, "compute")
    assert s.n_words is None and s.coverage == {"lm": 0.5, "rm": 0.25} and s.reward_kinds["rm"] == "RM"
    drivers = {"summaries": {"afinn": {"n": 3, "pos_prompts": {"holds": 1}}}, "weak": "pos_prompts",
               "down": pd.DataFrame({"word": ["x"], "mean_y": [-2.0]}),
               "extreme": pd.DataFrame({"word": ["x"], "afinn": [3.0], "afinn_extreme": [0.0]}),
               "worst_named": [], "named_extreme": pd.DataFrame({"afinn_extreme": []})}
    why = results.disagreement(drivers)
    assert why.weak_prompts == "positive prompts" and why.below_mean == [] and why.weak_holds_other == {}
    assert why.neg_extreme == {"afinn": None}  # no negative word among them: not computed, not 0


def test_a_bad_mode_or_lexicon_is_refused(pieces):
    with pytest.raises(ValueError):
        _results("both", "z", **pieces)  # not a MODE of the framing chapter
    with pytest.raises(ValueError):
        _results("published", "z", **(pieces | {"main": "liwc"}))  # not an affect lexicon
    with pytest.raises(ValueError):
        _results("published", "log", **pieces)  # not a RESPONSE
