"""rmlib.train.evaluate: accuracy and reward variance on known rewards."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.train import pairwise_accuracy, reward_variance


def test_metrics_on_known_scores():
    scored = pd.DataFrame({"prompt": ["a", "a", "b"], "chosen": ["x", "y", "z"], "rejected": ["y", "w", "v"],
                           "reward_chosen": [2.0, 1.0, 0.0], "reward_rejected": [1.0, 1.0, 1.0]})
    scored["margin"] = scored["reward_chosen"] - scored["reward_rejected"]
    assert pairwise_accuracy(scored) == pytest.approx((1 + 0.5 + 0) / 3)
    rv = reward_variance(scored)
    # prompt a: distinct responses x=2, y=1, w=1 -> var 2/9; prompt b: z=0, v=1 -> var 1/4
    assert rv["reward_var_raw"] == pytest.approx((2 / 9 + 1 / 4) / 2)
    all_r = np.array([2, 1, 1, 0, 1.0])
    assert rv["reward_var_whitened"] == pytest.approx(rv["reward_var_raw"] / all_r.var())
