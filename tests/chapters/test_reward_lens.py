"""The "Where the value lives" chapter on tiny-llama (as a base LM and as a random RM: arithmetic, not findings): the
parts sum to each model's score, the gap by layer sums to the whole gap, the frozen and tuned parts sum to it, and the
patching check ran over every block."""
from __future__ import annotations

import pytest


def test_reward_lens_tiny(chapter):
    c = chapter("reward_lens")
    r = c.results
    assert [m["kind"] for m in r["models"]] == ["implicit", "explicit"]
    assert all(m["n_words"] == 6 and m["n_layers"] == 2 and m["max_sum_error"] < 1e-4 for m in r["models"])
    (split,) = r["splits"]
    assert split["boundary"] == 1 and split["n_tuned"] == 1
    assert split["frozen"] + split["tuned"] == pytest.approx(split["total"], abs=1e-5)
    assert [(row["kind"], row["layer"]) for row in r["layers"]] == [
        (kind, layer) for kind in ("implicit", "explicit") for layer in (-1, 0, 1)]
    rm_layers = [row["gap"] for row in r["layers"] if row["kind"] == "explicit"]
    assert sum(rm_layers) == pytest.approx(split["total"], abs=1e-4)
    (check,) = r["patching"]
    assert check["n_pairs"] == 3 and check["n_blocks"] == 5
    assert f"a gap of {split['total']:.3f}" in c.markdown and c.n_charts == 1
