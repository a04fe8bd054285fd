"""rmlib.report.prose.exposure: the per-model verdicts say what the counts say."""
from __future__ import annotations

import pandas as pd

from rmlib.report import prose


def _by_model(pos_below: int) -> pd.DataFrame:
    return pd.DataFrame([
        {"prompts": pv, "source": s, "n_above": 4, "n_below": below, "n_models": 10, "outcome": "mixed"}
        for pv, below in (("positive", 0), ("negative", pos_below)) for s in ("bnc", "wordfreq")])


def test_mixed_says_when_models_go_significantly_the_other_way():
    # defect 9 of #25: "the right direction, but clear in too few models" although 2 RMs went the wrong way
    text = prose.exposure.verdicts_markdown(_by_model(2))
    neg = [line for line in text.splitlines() if line.startswith("- **Negative")][0]
    pos = [line for line in text.splitlines() if line.startswith("- **Positive")][0]
    assert "significantly the other way in 2 (BNC, exact word form), 2 (wordfreq)" in neg
    assert "the right direction" not in neg
    assert "the right direction, but clear in too few models" in pos


def test_the_lm_control_section_is_omitted_in_published_mode():
    # #28 item 4: the published page printed a section only to say it was empty
    assert prose.exposure.lm_control_markdown(pd.DataFrame(), "published") == ""
    text = prose.exposure.lm_control_markdown(pd.DataFrame(), "compute")
    assert text.startswith("## Does the RM double-count") and "has a known reference LM" in text
