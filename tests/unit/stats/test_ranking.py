"""rmlib.stats.ranking: standardised rewards within groups."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib import stats


def test_standardise():
    df = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "prompt_key": "p", "reward": [1, 2, 3, 4, 10, 20, 30, 40.0]})
    z = stats.standardise(df, method="z")
    assert np.allclose(z[:4], z[4:]) and abs(z[:4].mean()) < 1e-12
    r = stats.standardise(df, method="rank")
    assert r.tolist() == [25, 50, 75, 100] * 2
    with pytest.raises(ValueError, match="constant"):
        stats.standardise(df.assign(reward=1.0))
