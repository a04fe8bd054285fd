"""The "Value cards" page (#42): the ten paper RMs' cards from their released scores and a tiny model's computed card,
one row each, the rows equal to the cards that rmlib card writes, and the page's sentences stating its summary."""
from __future__ import annotations

import pytest

from rmbook.chapters.elo_misalignment.analysis import elo_scores
from rmbook.chapters.value_cards import analysis as card
from rmbook.chapters.value_cards import gallery


def test_value_cards_paper_rms_and_a_computed_card(chapter):
    c = chapter("value_cards")
    r, md = c.results, c.markdown
    rows = {row["label"]: row for row in r["rows"]}
    assert r["mode"] == "compute" and r["kind"] == "standard" and len(r["prompts"]) == 18
    assert [row["source"] for row in r["rows"]].count("released scores") == 10 and "tiny-llama" in rows
    # each paper RM's row is its card from the released scores, placed among the other nine
    paper_cards = gallery.paper_rm_cards(n_resamples=199)
    paper = gallery.gallery_rows(paper_cards, "released scores").set_index("label")
    for label, row in paper.iterrows():
        assert rows[label]["gap_negative"] == pytest.approx(row["gap_negative"])
        assert rows[label]["side_positive"] == row["side_positive"] and rows[label]["nearest"] == row["nearest"]
        # #66: its intervals over words and prompts, its null's count and verdict, recomputed from the released scores
        assert [rows[label][k] for k in ("gap_negative_low", "gap_positive_high", "null_beyond_median")] == \
            pytest.approx([row["gap_negative_low"], row["gap_positive_high"], row["null_beyond_median"]])
        assert (rows[label]["n_beyond"], rows[label]["indistinguishable"]) == (row["n_beyond"], row["indistinguishable"])
    assert r["base_rate"] == paper_cards[0].base_rate.per_model and r["base_rate_numbers"] == 12
    assert f"a paper RM has {r['base_rate_mean']:.1f} beyond the other nine on average" in md
    assert md.count("*Base rate.*") == 11 and md.count("*Provenance.*") == 1  # the computed card's; released: none
    assert md.count("**Indistinguishable from noise.**") + md.count("**Against a null.**") == 11
    # and its agreement with people's EloEverything ratings is the elo_misalignment chapter's, among the other nine
    released = elo_scores("published", None, n_items=card.ELO_ITEMS)
    rho = card.elo_agreement(released.scores, released.models, released.label).set_index("model")["rho"]
    assert {label: rows[label]["elo_rho"] for label in rho.index} == pytest.approx(rho.to_dict())
    assert rows[rho.idxmax()]["elo_side"] == "above every paper RM"  # the highest of ten is above the other nine
    # each paper RM's card also carries its misvalued items, its place on the map and where it places groups of people
    assert md.count("**Groups of people.**") == 11 and md.count("**On the heterogeneity chapter's map.**") == 11
    assert md.count("it values most above people") == 11
    identity = elo_scores("published", None, n_items=card.ELO_ITEMS, extra_items=card.identity_elo_items())
    excess = card.identity_excess(identity.scores, identity.label).groupby("label")["excess"].mean()
    assert {label: rows[label]["identity_excess"] for label in excess.index} == pytest.approx(excess.to_dict())
    tiny, s = rows["tiny-llama"], r["computed"]
    assert tiny["weights"].startswith("tiny-weights:") and tiny["n_numbers"] == 12 and tiny["gap_negative_low"] <= tiny["gap_negative"]
    assert s["beyond"]["tiny-llama"].startswith(f"{tiny['n_beyond']} of 12 (null: ")
    assert ("tiny-llama" in s["indistinguishable"]) is tiny["indistinguishable"]
    assert s["n_models"] == 1 and s["max_tau_model"] == "tiny-llama" and s["max_tau"] == pytest.approx(tiny["nearest_tau"])
    assert s["n_beyond_gap"] == int(tiny["side_negative"] != "among them" or tiny["side_positive"] != "among them")
    assert f"Kendall's τ = {s['max_tau']:.2f} (tiny-llama with {tiny['nearest']})" in md
    assert s["n_elo"] == 1 and -1 <= tiny["elo_rho"] <= 1 and "Its agreement with people's EloEverything ratings" in md
    assert ("falls among the ten" in md) is (tiny["elo_side"] == "among them")
    assert r["trained"] == {"asked": [], "pairs": [], "missing": {}} and "`TRAINED` is empty" in md
    assert f"{r['n_paper_beyond_gap']} paper RMs of ten" in md or f"{r['n_paper_beyond_gap']} paper RM of ten" in md
    assert md.count("## Value card: ") == 11 and c.n_charts == 1 + 4  # the overview, and the computed card's four
    assert 'Each card on this page: <a href="#value-card-tiny-llama">tiny-llama</a> · <a href="#value-card-' in md


def test_value_cards_diffs_a_trained_rm_against_its_base_and_reports_one_not_trained(chapter):
    """An RM trained from tiny-llama into the run's own cache (as the finetuning chapter trains its RMs) is diffed
    against tiny-llama's card; an RM that was never trained is named, with how to train it."""
    from rmlib.train import TrainConfig, train

    def train_rm():
        train(TrainConfig(name="vc-tiny", base="tiny-llama", sources=["synthetic_marker"], n_pairs=32, n_test=16,
                          steps=8, batch_size=8, lr=2e-3, max_len=96, tuning="full", save_every=8, dtype="float32",
                          save_dtype="float32"), progress=False)

    c = chapter("value_cards", isolated_cache=True, MODE="published", TRAINED=["local:vc-tiny", "local:no-such-rm"],
                prepare=train_rm)
    r, md = c.results, c.markdown
    t = r["trained"]
    assert [(p["base"], p["rm"]) for p in t["pairs"]] == [("tiny-llama", "local:vc-tiny")]
    assert list(t["missing"]) == ["local:no-such-rm"] and "`local:no-such-rm`" in md
    p = t["pairs"][0]
    assert p["n_judged"] == 12 and 0 <= p["n_outside"] <= 12 and len(p["outside"]) == p["n_outside"]
    assert f"training moved {p['n_outside']} of the card's 12 numbers" in md
    rows = {row["model"]: row for row in r["rows"]}
    assert rows["local:vc-tiny"]["source"] == "computed" and rows["local:vc-tiny"]["gap_negative"] == p["gap_negative_rm"]
    assert "tiny-llama" not in rows  # the base's card is diffed, not listed: MODE published computes no MODELS
