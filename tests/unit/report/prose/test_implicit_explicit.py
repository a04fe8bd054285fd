"""Computed prose of the implicit_vs_explicit chapter (rmlib.report.prose.implicit_explicit)."""
from __future__ import annotations

import pandas as pd
import pytest

from rmlib.analysis.implicit_explicit import pattern_verdict
from rmlib.report.prose.implicit_explicit import verdict_markdown


def _gaps(drop, domain):
    """Paired gaps with the given (gap, ci_low, ci_high) for the token-shift drop and one domain set."""
    return pd.DataFrame([{"eval_set": "token_shift_drop", "gap": drop[0], "ci_low": drop[1], "ci_high": drop[2]},
                         {"eval_set": "domain:ultrafeedback", "gap": domain[0], "ci_low": domain[1],
                          "ci_high": domain[2]}])


@pytest.mark.parametrize("drop, domain, says", [
    ((0.10, 0.02, 0.18), (0.05, -0.02, 0.12), "The published pattern **replicates**"),
    ((-0.10, -0.18, -0.02), (0.05, -0.02, 0.12), "**does not replicate** for these two RMs: the token-level half"),
    ((0.04, -0.07, 0.13), (-0.10, -0.18, -0.02), "**does not replicate** for these two RMs: the domain half"),
    # the full run's case: an interval across 0 is no evidence against the paper
    ((0.04, -0.07, 0.13), (0.04, -0.06, 0.14), "**not established** for these two RMs: the token-level half is "
                                                "inconclusive."),
])
def test_the_overall_sentence_follows_the_halves(drop, domain, says):
    gaps = _gaps(drop, domain)
    text = verdict_markdown(pattern_verdict(gaps), gaps, "tiny-llama")
    assert says in text
    assert ("does not replicate" in text.split("\n\n")[-1]) == ("does not replicate" in says)
