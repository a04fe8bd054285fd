"""rmlib.analysis.results.mere_exposure: the chapter's results built from small planted frames (two models, two
frequency matchings, the verdicts over models applied by the library), stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis.exposure import verdicts as ev
from rmlib.analysis.results import mere_exposure as results
from rmlib.storage import read_results, write_results

SOURCES = ["bnc", "wordfreq"]


def _pooled() -> pd.DataFrame:
    """Per model and matching: positive-prompt slopes clearly above zero, negative-prompt ones above for one model."""
    rows = []
    for s in SOURCES:
        for label, neg in (("m1", 0.3), ("m2", -0.05)):
            rows.append({"label": label, "source": s, "n": 100, "slope_positive": 0.4, "slope_positive_ci_low": 0.2,
                         "slope_positive_ci_high": 0.6, "slope_negative": neg, "slope_negative_ci_low": neg - 0.1,
                         "slope_negative_ci_high": neg + 0.1, "difference": 0.4 - neg, "p": 0.01})
    return pd.DataFrame(rows)


@pytest.fixture
def pieces() -> dict:
    data = pd.DataFrame({"level": "word", "model": ["b", "a", "b", "a"], "reward_kind": "RM score",
                         "prompt_key": ["worst", "best", "best", "worst"], "word": ["cat", "dog", "cat", "dog"]})
    share_table = pd.DataFrame({"source": SOURCES, "prompts": "positive", "n_cells": 4, "n_positive": [4, 3],
                                "share": [1.0, 0.75], "null_mean": 0.5, "null_low": [0.25, np.nan], "null_high": 0.75})
    pooled = _pooled()
    return dict(data=data, cover={"bnc": 0.3, "wordfreq": 0.98}, sources=SOURCES, share_table=share_table,
                by_dict=pd.DataFrame(), by_model=ev.model_verdicts(pooled, SOURCES), pooled=pooled,
                agreement=pd.DataFrame({"a": ["bnc"], "b": ["wordfreq"], "rho": [0.9], "same_sign": [0.8]}),
                kl=pd.DataFrame())


def test_the_results_of_planted_frames_are_typed_and_read_back(pieces, tmp_path):
    res = results.chapter_results("published", "afinn", **pieces)
    assert res.level == "word" and res.models == ["a", "b"] and res.prompts == ["best", "worst"]
    assert res.matchings == SOURCES and res.coverage == {"bnc": 0.3, "wordfreq": 0.98}
    assert len(res.by_model) == 2 * 2  # matchings x prompt valences
    neg = next(v for v in res.by_model if v.source == "wordfreq" and v.prompts == "negative")
    assert (neg.n_above, neg.n_below, neg.n_models) == (1, 0, 2)
    pos = next(v for v in res.by_model if v.source == "bnc" and v.prompts == "positive")
    assert (pos.n_above, pos.outcome) == (2, "holds")
    assert res.by_valence[1]["null_low"] is None and len(res.pooled) == 4  # NaN stored as null
    assert res.kl == [] and res.by_dictionary == [] and res.source_agreement[0]["rho"] == 0.9
    write_results(res, tmp_path)
    assert read_results("mere_exposure", tmp_path, results.MereExposureResults) == res


def test_a_bad_mode_or_matching_is_refused(pieces):
    with pytest.raises(ValueError):
        results.chapter_results("both", "afinn", **pieces)  # not a MODE of the chapter
    with pytest.raises(ValueError):
        results.chapter_results("published", "afinn", **(pieces | {"sources": ["google"]}))  # not a frequency list
    with pytest.raises(ValueError):
        results.chapter_results("published", "liwc", **pieces)  # not a valence lexicon
