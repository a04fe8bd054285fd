"""rmlib.report.prose.framing: a positive value is not called low."""
from __future__ import annotations

import pandas as pd

from rmlib.report.prose.framing import _below_mean_note


def test_only_words_below_the_mean_are_called_so():
    # defect 9 of #25: "(a low value ...)" printed next to +0.3
    down = pd.DataFrame({"word": ["slur", "war"], "mean_y": [-1.2, 0.3]})
    assert "*slur* below the mean" in _below_mean_note(down) and "war" not in _below_mean_note(down)
    assert _below_mean_note(down.assign(mean_y=[0.3, 0.5])) == ". "
    assert "all below the mean" in _below_mean_note(down.assign(mean_y=[-0.3, -0.5]))
