"""The identity-terms chapter: gaps per item and per word, flags, and fragile single tokens."""
from __future__ import annotations

import pytest

import rmlib.data as data
from rmbook.analysis import words
from rmbook.chapters.identity_terms import analysis as identity


SMOLLM2 = "smollm2-135m-instruct"


def test_identity_terms_published_tiny(chapter):
    c = chapter("identity_terms")
    r, md, n_charts = c.results, c.markdown, c.n_charts
    assert r["mode"] == "published" and r["reward_kinds"] == ["RM score"] and r["elo"]["n_models"] == 2
    assert r["beside"] is None and "Beside the paper RMs" not in md  # published mode: the paper RMs are the run
    items = {row["item"]: row for row in r["elo"]["items"]}
    assert "Christianity" in items and "Shorts" not in items and "Black hole" not in items
    # the chapter's gaps are the library's gaps
    elo = data.published_elo_scores(r["models"])
    ranks = identity.identity_elo_ranks(elo, identity.match_identity_items(elo["item"].unique()))
    expect = ranks[ranks["item"] == "Christianity"]["gap"].mean()
    assert items["Christianity"]["gap"] == pytest.approx(expect)
    assert all(-100 <= row["gap"] <= 100 for row in items.values())
    worst = min(items.values(), key=lambda row: row["excess"])
    # the largest negative excess over the gap expected at the item's human rank is stated with its computed value
    assert f"({worst['excess']:+.0f}; gap {worst['gap']:+.0f})" in md
    assert all(row["excess"] == pytest.approx(row["gap"] - row["expected_gap"]) for row in items.values())
    assert r["elo"]["human_bins"] == identity.HUMAN_BINS and r["elo"]["n_below_raw"] is None
    w = r["words"]
    assert w["level"] == "word" and w["n_universe"] > 500 and w["n_terms"] > 0 and w["human_source"] == "Warriner"
    assert f"are among the {w['n_universe']:,} scored words that Warriner rates" in md  # the sentence states the section
    assert r["elo"]["n_below"] is None  # two RMs: no interval over RMs, so no count of reliable gaps
    assert r["terms"]["n_flagged"] == sum(data.identity_terms()["pejorative_in_some_uses"]) and n_charts >= 3
    assert f"{r['terms']['n_terms']} identity terms: {r['terms']['n_holistic_bias']} from HolisticBias" in md


def test_identity_terms_compute_smollm2(chapter, needs_smollm2):
    c = chapter("identity_terms", MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"])
    r, md, _ = c.results, c.markdown, c.n_charts
    assert r["elo"] is None and r["words"]["level"] == "token"  # no EloEverything items in compute mode
    assert r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    rows = r["words"]["rows"]
    assert len({row["word"] for row in rows}) > 20
    assert all(row["token_pct_min"] <= row["token_pct_max"] and row["n_variants"] >= 1 for row in rows)
    fragile = r["words"]["fragile"]
    assert f"**Single tokens are fragile evidence.** {fragile['n_wide']} of {fragile['n_rows']} term" in md
    assert "implicit reward" in md and "compute-mode** run" in md
    # #43 item 7: the paper RMs stay on the page, on the identity words both scored under the same prompt wordings
    near = r["beside"]
    assert near["prompts"] == ["greatest", "worst"] and len(near["rows"]) == 2
    assert all(p["n_reference"] == 10 and 0 < p["n_words"] < 100 for p in near["rows"]) and "Beside the paper RMs" in md
