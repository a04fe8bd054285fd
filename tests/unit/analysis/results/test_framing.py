"""rmlib.analysis.results.framing: the chapter's results built from small planted frames (two models, two lexicons,
the halves counted by the library), stored and read back."""
from __future__ import annotations

import pandas as pd
import pytest

from rmlib.analysis import framing
from rmlib.analysis.framing import sources as fs
from rmlib.analysis.results import framing as results
from rmlib.storage import read_results, write_results


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
               "weak": "neg_prompts"}
    return dict(main="afinn", scores=scores, prompts=fs.prompt_valences(scores), frames=frames, contrasts=contrasts,
                halves=halves, summary=summary, outcome=fs.halves_outcome(summary), by_half=by_half, cells=cells,
                drivers=drivers)


def test_the_results_of_planted_frames_are_typed_and_read_back(pieces, tmp_path):
    res = results.chapter_results("published", "z", **pieces)
    assert res.level == "word" and res.models == ["m1", "m2"] and res.prompts == ["p1", "p2", "n1", "n2"]
    assert res.n_words == {"afinn": 30, "warriner": 40} and len(res.contrast["afinn"]) == 2
    assert res.halves_summary == res.halves_by_source["afinn"]
    assert res.halves_summary.pos_prompts.holds == 2 and res.halves_summary.neg_prompts.reversed == 1
    assert res.halves_summary.patterns == {"opposite signs": 1, "positive-prompt half only": 1}
    assert res.halves_by_source["warriner"].neg_prompts.holds == 2
    assert res.halves_outcome == {"pos_prompts": "holds", "neg_prompts": "fails"}
    pos = next(c for c in res.cell_counts_by_half if c.half == "pos_prompts")
    assert (pos.n_congruent_steeper, pos.n_cells) == (3, 4) and len(res.cells) == 8
    assert res.weak_half == "neg_prompts" and res.influential_words["afinn"][0]["word"] == "w0"
    write_results(res, tmp_path)
    assert read_results("framing", tmp_path, results.FramingResults) == res


def test_a_bad_mode_or_lexicon_is_refused(pieces):
    with pytest.raises(ValueError):
        results.chapter_results("both", "z", **pieces)  # not a MODE of the framing chapter
    with pytest.raises(ValueError):
        results.chapter_results("published", "z", **(pieces | {"main": "liwc"}))  # not an affect lexicon
    with pytest.raises(ValueError):
        results.chapter_results("published", "log", **pieces)  # not a RESPONSE
