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
    assert split["frozen_identity"] is not None and split["frozen_identity"] >= 0
    assert f"a gap of {split['total']:.3f}" in c.markdown and c.n_charts == 1
    assert r["summary"]["n_rms"] == 1 and r["summary"]["n_identity"] == 1 and "Of 1 RM, " in c.markdown
    # the lab: the reference solutions' attributions sum to the score, and patching finds the planted layer
    assert "Patching puts the preference in **L1.mlp**" in c.markdown
    line = next(x for x in c.markdown.splitlines() if x.startswith("The blocks sum to"))
    total, score = (float(v.rstrip(".")) for v in line.replace(";", "").split() if v.rstrip(".").lstrip("-")
                    .replace(".", "", 1).isdigit())
    assert total == pytest.approx(score, abs=1e-4)
