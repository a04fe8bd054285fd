"""rmbook.chapters.mere_exposure.results: the chapter's results built from small planted frames (two models, two
frequency matchings, the verdicts over models applied by the library) with the sections their sentences are rendered
from, stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.mere_exposure import verdicts as ev
from rmbook.chapters.mere_exposure import results
from rmlib.data import RM_SCORE
from rmbook.results import read_results, write_results

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
                                "share": [1.0, 0.75], "null_mean": 0.5, "null_low": [0.25, np.nan], "null_high": 0.75,
                                "p_greater": [0.01, 0.2]})
    pooled = _pooled()
    cover = {"bnc": 0.3, "wordfreq": 0.98}
    by_model = ev.model_verdicts(pooled, SOURCES)
    pairs = pd.DataFrame({"a": ["bnc"], "b": ["wordfreq"], "rho": [0.9], "same_sign": [0.8]})
    sections = dict(scores=results.scores("published", data, cover), shares=results.shares(share_table, SOURCES),
                    dictionaries=results.dictionaries(pd.DataFrame()), verdicts=results.verdicts(by_model),
                    agreement=results.agreement(pairs), lm_control=results.lm_control(pd.DataFrame(), "published"))
    return dict(data=data, cover=cover, sources=SOURCES, share_table=share_table, by_dict=pd.DataFrame(),
                by_model=by_model, pooled=pooled, pairs=pairs, kl=pd.DataFrame(), **sections)


def test_the_results_of_planted_frames_are_typed_and_read_back(pieces, tmp_path):
    res = results.chapter_results("afinn", **pieces)
    assert res.level == "word" and res.models == ["a", "b"] and res.prompts == ["best", "worst"]
    assert res.matchings == SOURCES and res.coverage == {"bnc": 0.3, "wordfreq": 0.98}
    assert len(res.by_model) == 2 * 2  # matchings x prompt valences
    neg = next(v for v in res.by_model if v.source == "wordfreq" and v.prompts == "negative")
    assert (neg.n_above, neg.n_below, neg.n_models) == (1, 0, 2)
    pos = next(v for v in res.by_model if v.source == "bnc" and v.prompts == "positive")
    assert (pos.n_above, pos.outcome) == (2, "holds")
    assert res.by_valence[1]["null_low"] is None and len(res.pooled) == 4  # NaN stored as null
    assert res.kl == [] and res.by_dictionary == [] and res.source_agreement[0]["rho"] == 0.9
    # the sections the sentences are rendered from
    assert (res.mode, res.scores.n_models, res.scores.n_words, res.scores.n_prompts) == ("published", 2, 2, 2)
    assert [(c.source, c.label) for c in res.scores.coverage] == [("bnc", "BNC, exact word form"),
                                                                  ("wordfreq", "wordfreq")]
    pos_shares = res.shares.valences[0]
    assert pos_shares.heading == "Positive" and [r.n_positive for r in pos_shares.rows] == [4, 3]
    assert pos_shares.rows[1].null_low is None and res.shares.valences[1].rows == []
    assert (res.shares.n_rows, res.shares.n_wide) == (2, 0)
    neg_verdict = res.verdicts.valences[1]
    assert neg_verdict.outcome == "mixed" and neg_verdict.against == []  # 1 of 2 models above zero, none below
    assert [r.n_above for r in neg_verdict.rows] == [v.n_above for v in res.by_model if v.prompts == "negative"]
    assert res.verdicts.valences[0].outcome == "holds" and res.verdicts.most == 0.75
    assert res.dictionaries.n_combinations == 0 and res.agreement.pairs[0].b_label == "wordfreq"
    assert res.lm_control.mode == "published" and not res.lm_control.has_reference
    write_results(res, tmp_path)
    assert read_results("mere_exposure", tmp_path, results.MereExposureResults) == res


def test_a_bad_mode_or_matching_is_refused(pieces):
    with pytest.raises(ValueError):
        results.scores("both", pieces["data"], pieces["cover"])  # not a MODE of the chapter
    with pytest.raises(ValueError):
        results.chapter_results("afinn", **(pieces | {"sources": ["google"]}))  # not a frequency list
    with pytest.raises(ValueError):
        results.chapter_results("liwc", **pieces)  # not a valence lexicon


def test_the_sections_hold_what_the_sentences_compute():
    by_dict = pd.DataFrame({"dictionary": ["Big Two", "MFD2"], "prompts": ["positive", "negative"],
                            "source": ["bnc", "wordfreq"], "share": [0.9, 0.5], "n_positive": [9, 5], "n_cells": 10})
    d = results.dictionaries(by_dict)
    assert (d.n_combinations, d.share_min, d.share_max) == (2, 0.5, 0.9)
    assert [(r.dictionary, r.label) for r in d.low] == [("MFD2", "wordfreq")]  # below the claims page's 75%
    by_model = pd.DataFrame({"source": SOURCES * 2, "prompts": ["positive"] * 2 + ["negative"] * 2,
                             "n_above": 1, "n_below": [0, 0, 2, 0], "n_models": 4, "outcome": "mixed"})
    v = results.verdicts(by_model)
    assert [x.outcome for x in v.valences] == ["mixed", "mixed"]
    assert v.valences[0].against == [] and [r.source for r in v.valences[1].against] == ["bnc"]
    kl = pd.DataFrame({"reward_kind": ["LM log-prob", RM_SCORE, RM_SCORE], "lm_slope": [0.2, None, None],
                       "rho_reward_vs_lm_logprob": [None, 0.3, 0.5], "reward_slope": [None, 0.1, 0.3],
                       "reward_slope_given_lm": [None, 0.0, 0.2]})
    lm = results.lm_control(kl, "compute")
    assert (lm.n_lm_cells, lm.n_rm_cells, lm.lm_slope_min, lm.lm_slope_max) == (1, 2, 0.2, 0.2)
    assert (lm.rho_median, lm.reward_slope_median, lm.reward_slope_given_lm_median) == pytest.approx((0.4, 0.2, 0.1))
    assert results.lm_control(kl[kl["reward_kind"] != RM_SCORE], "compute").rho_median is None  # no trained RM
