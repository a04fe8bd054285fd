"""rmlib.storage.results: each chapter's numbers as strict JSON, written atomically."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest


def test_results_are_strict_json_written_atomically(tmp_path):
    from rmlib import storage as results

    path = results.write_results("x", {"a": np.float32(1.5), "b": float("nan"), "c": [np.int64(3), np.inf],
                               "d": pd.DataFrame({"k": [1, 2]}), "e": np.array([True, False])}, tmp_path)
    assert path == tmp_path / "x.json" and sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]
    assert json.loads(path.read_text()) == {"a": 1.5, "b": None, "c": [3, None], "d": [{"k": 1}, {"k": 2}],
                                            "e": [True, False]}
    assert results.read_results("x", tmp_path)["a"] == 1.5
    assert results.write_results("x", {}, None) is None
    with pytest.raises(results.ResultsError, match="run it first"):
        results.read_results("missing", tmp_path)
