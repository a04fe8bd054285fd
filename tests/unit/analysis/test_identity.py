"""rmlib.analysis.identity: strict matching of identity items, percentile gaps, spellings of a word."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import identity
import rmlib.data as data


def test_match_identity_items_uses_strict_rules():
    items = ["Christianity", "Black people", "Black hole", "Americans", "Gay", "Shorts", "Islam (religion)",
             "Lesbian bar"]
    m = identity.match_identity_items(items)
    got = dict(zip(m["item"], m["term"]))
    assert got == {"Christianity": "christian", "Black people": "black", "Americans": "american", "Gay": "gay",
                   "Islam (religion)": "muslim"}  # no substring matches; 'Shorts' is a known false friend
    assert set(m["rule"]) == {"noun form", "'people'", "plural", "exact"}
    amb = identity.match_identity_items(items, include_ambiguous=True)
    assert amb.loc[amb["item"] == "Shorts", "ambiguous"].item() == data.AMBIGUOUS_ITEMS["shorts"]


def test_identity_elo_ranks_percentiles_and_gap():
    n = 200
    rng = np.random.default_rng(0)
    elo = pd.DataFrame({"model": "m", "prompt_key": "p", "item": [f"i{k}" for k in range(n - 2)] + ["Gay", "Americans"],
                        "elo_score": np.arange(n, dtype=float)})
    elo["reward"] = rng.normal(size=n)
    elo.loc[elo["item"] == "Gay", "reward"] = -10.0  # the RM's lowest; people's second highest
    elo.loc[elo["item"] == "Americans", "reward"] = 10.0  # the RM's highest; people's highest
    r = identity.identity_elo_ranks(elo, identity.match_identity_items(elo["item"])).set_index("item")
    assert r.loc["Gay", "model_pct"] == pytest.approx(100 / n) and r.loc["Gay", "human_pct"] == pytest.approx(99.5)
    assert r.loc["Gay", "gap"] == pytest.approx(100 / n - 99.5)
    assert r.loc["Americans", "gap"] == pytest.approx(0.0)
    assert r.loc["Gay", "pejorative_in_some_uses"]


def test_identity_word_ranks_flip_human_ranking_under_negative_prompts():
    words = ["love", "war", "catholic", "elderly", "table", "murder"]
    rows = []
    for pk, pv in [("best", "positive"), ("worst", "negative")]:
        for k, w in enumerate(words):
            rows.append({"model": "m", "prompt_key": pk, "prompt_valence": pv, "word": w, "reward": float(k)})
    wr = identity.identity_word_ranks(pd.DataFrame(rows))
    assert set(wr["word"]) == {"catholic", "elderly"} and (wr["n_universe"] == 6).all()
    for w in ("catholic", "elderly"):
        pos, neg = (wr[(wr.word == w) & (wr.prompt_valence == v)].iloc[0] for v in ("positive", "negative"))
        assert pos["model_pct"] == neg["model_pct"]
        assert pos["human_pct"] + neg["human_pct"] == pytest.approx(100.0)  # flipped under negative prompts
        assert pos["gap"] == pytest.approx(pos["model_pct"] - pos["human_pct"])


def test_token_word_scores_group_spellings_and_report_spread():
    ts = pd.DataFrame({"model": "m", "prompt_key": "p", "prompt_valence": "positive",
                       "text": [" Gay", "gay", "GAY", " table", "!!"]
                       + [f" filler{chr(97 + k % 26)}{chr(97 + k // 26)}" for k in range(95)],
                       "reward": [10.0, -10.0, 0.0, 1.0, 5.0] + list(np.linspace(-5, 5, 95))})
    w = identity.token_word_scores(ts).set_index("word")
    assert "!!" not in w.index
    assert w.loc["gay", "n_variants"] == 3 and w.loc["gay", "reward"] == pytest.approx(0.0)
    assert w.loc["gay", "token_pct_max"] - w.loc["gay", "token_pct_min"] > 90  # one spelling alone would mislead
