"""rmbook.analysis.beside (#43 item 7): in compute mode the paper RMs stay on a chapter's page. Their released scores
are matched to the run's prompts by wording, each chapter's measure is taken on the same prompts and words, and a
computed model is placed among them by the value cards' rule."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from rmbook.analysis import beside
from rmbook.analysis.words import published_scores
from rmbook.chapters.elo_misalignment import analysis as hr
from rmbook.chapters.framing import sources as fs
from rmbook.chapters.mere_exposure import verdicts as ev

GEM = "Ray2333/GRM-gemma2-2B-rewardmodel-ft"
FACCT = {"greatest_ever_one": "greatest", "worst_ever_one": "worst"}  # the FAccT prompts are two design prompts


@pytest.fixture(scope="module")
def copied():
    """R-Gem-2B's released word scores as if a computed model had produced them under the FAccT prompt keys."""
    one = published_scores([GEM], list(FACCT))
    return one.assign(prompt_key=one["prompt_key"].map(FACCT), model="copy", label="copy",
                      reward_kind="LM log-prob (implicit reward)")


def test_the_placement_rule():
    ref = pd.Series({"a": -10.0, "b": 0.0, "c": 5.0})
    assert beside.placement(-11, ref) == {"rank": 1, "n_reference": 3, "side": "below every paper RM",
                                          "nearest": ["a", "b"], "nearest_distance": 1.0}
    assert beside.placement(6, ref)["side"] == "above every paper RM"
    among = beside.placement(1, ref)
    assert among["side"] == "among them" and among["rank"] == 3 and among["nearest"] == ["b", "c"]
    with pytest.raises(ValueError, match="no reference"):
        beside.placement(1, pd.Series(dtype=float))


def test_reference_scores_match_prompts_by_wording(copied):
    odd = copied.assign(prompt_key="mine", prompt="What, in one word, is the oddest thing ever?").head(3)
    ref, missing = beside.reference_scores(pd.concat([copied, odd]))
    assert sorted(ref["prompt_key"].unique()) == ["greatest", "worst"] and missing == ["mine"]
    assert ref["label"].nunique() == 10 and set(ref["label"]) == set(beside.families())
    # one valence alone gives the chapters' measures nothing to compare: nothing is matched
    positive_only, missing = beside.reference_scores(copied[copied["prompt_key"] == "greatest"])
    assert positive_only.empty and missing == ["greatest"]


def test_a_copy_of_a_paper_rm_sits_on_it_for_framing_and_exposure(copied):
    for found in (fs.beside_paper_rms(copied, "afinn"), ev.beside_paper_rms(copied, "wordfreq")):
        rows = found["placements"]
        assert len(rows) == 2 and (rows["n_reference"] == 10).all() and (rows["side"] == "among them").all()
        assert all(n.startswith("R-Gem-2B") for n in rows["nearest"])
        ref = found["reference"]
        mine = ref[ref["label"] == "R-Gem-2B"].set_index("measure")["estimate"]
        assert np.allclose(rows.set_index("measure")["estimate"], mine.reindex(rows["measure"]))
        assert found["prompts"] == ["greatest", "worst"] and found["missing"] == []


def test_a_model_that_follows_the_prompt_hard_is_above_every_paper_rm(copied):
    """Rewarding only the words whose AFINN valence agrees with the prompt's, by how strongly they agree, makes both
    framing halves larger than any paper RM's."""
    from rmlib.data import word_affect

    valence = word_affect(copied["word"], "afinn", missing="zero").to_numpy()
    sign = np.where(copied["prompt_valence"] == "positive", 1.0, -1.0)
    planted = copied.assign(reward=np.maximum(sign * valence, 0.0))
    rows = fs.beside_paper_rms(planted, "afinn")["placements"]
    assert (rows["side"] == "above every paper RM").all(), rows


def test_each_computed_model_is_compared_on_its_own_words(copied):
    words = sorted(copied["word"].unique())[:300]
    fewer = copied[copied["word"].isin(words)].assign(label="fewer", model="fewer")
    found = fs.beside_paper_rms(pd.concat([copied, fewer]), "afinn")
    assert found["own"].set_index("label")["n_words"].to_dict() == {"copy": copied["word"].nunique(), "fewer": 300}
    ref = found["reference"]
    assert set(ref["for_label"]) == {"copy", "fewer"} and len(ref) == 2 * 2 * 10


def test_no_matching_prompt_places_nothing(copied):
    found = fs.beside_paper_rms(copied.assign(prompt="Something else, " + copied["prompt_key"]), "afinn")
    assert found["placements"].empty and found["missing"] == ["greatest", "worst"]


def test_elo_agreement_of_a_copied_paper_rm_equals_its_own():
    elo = hr.elo_scores("published", [GEM], ["greatest"], 200)
    copy = replace(elo, scores=elo.scores.rename(columns={GEM: "copy"}), models=["copy"], label={"copy": "copy"})
    found = hr.beside_paper_rms(copy, 200)
    row = found["placements"].iloc[0]
    ref = found["reference"].set_index("label")["estimate"]
    assert row["estimate"] == pytest.approx(ref["R-Gem-2B"]) and row["nearest"].startswith("R-Gem-2B")
    assert found["own"]["n_words"].iloc[0] == 200 and row["n_reference"] == 10
    with pytest.raises(ValueError, match="different EloEverything items"):
        hr.beside_paper_rms(copy, 100)


def test_identity_gaps_of_a_copied_paper_rm_equal_its_own(copied):
    """The identity words among the paper RMs' dictionary words are few; the placement says on how many it rests."""
    from rmbook.chapters.identity_terms import analysis as identity

    found = identity.beside_paper_rms(copied)
    rows = found["placements"]
    assert set(rows["measure"]) == {"positive prompts", "negative prompts"} and (rows["n_reference"] == 10).all()
    assert rows["n_words"].between(1, 20).all()  # the identity words among the dictionary words, not all of them
    ref = found["reference"]
    mine = ref[ref["label"] == "R-Gem-2B"].set_index("measure")["estimate"]
    assert np.allclose(rows.set_index("measure")["estimate"], mine.reindex(rows["measure"]))


def test_a_model_that_shares_no_word_with_the_paper_rms_is_named_not_placed(copied):
    """A computed model whose words the released scores do not hold (a tiny or non-English vocabulary) made the
    measure run on an empty frame; it is now listed as not placed, and the others are placed."""
    alien = copied.assign(label="alien", model="alien", word="zz" + copied["word"])
    found = fs.beside_paper_rms(pd.concat([copied, alien]), "afinn")
    assert set(found["placements"]["label"]) == {"copy"} and list(found["unplaced"]) == ["alien"]
    only = fs.beside_paper_rms(alien, "afinn")
    assert only["placements"].empty and only["prompts"] == ["greatest", "worst"] and "alien" in only["unplaced"]
