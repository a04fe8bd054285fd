"""rmlib.analysis.results.value_profiles: the big_two and moral_foundations results (one type) built from planted
value scores, each keeping only its own chapter's pieces, stored and read back."""
from __future__ import annotations

import pytest

from rmlib.analysis import families as fam, values as vp
from rmlib.analysis.results import value_profiles as results
from rmlib.storage import ResultsError, read_results, write_results

FAMILIES = ["Gemma", "Llama"]


_PIECES: dict = {}


@pytest.fixture
def pieces(family_scores):
    """One planted family analysis (fitting one takes a second) standing in for both tables and, with its panels
    renamed, for the by-foundation analysis; the comparison with the published panels is planted."""
    if not _PIECES:
        scores = family_scores(n_per_family=3, n_words=12, effect=3.0)
        res = fam.family_analysis(scores, families=FAMILIES, n_resamples=99)
        by_foundation = {**res, "permutation": res["permutation"].rename(columns={"category": "foundation"})}
        _PIECES.update(
            analyses={"published": res, "compute": res}, comparison={"same": 3, "panels": 4, "n_prompts": 4},
            love_freedom=vp.word_ranks(scores, ["w0", "w1"], "greatest_ever_one"),
            three_way_models=fam.interaction_test(res["median_ranks"], families=FAMILIES, n_resamples=99),
            by_foundation=by_foundation)
    return _PIECES


def _build(chapter, p, mode="compute", dictionary="big2"):
    return results.chapter_results(chapter, mode, dictionary, FAMILIES, p["analyses"], p["comparison"],
                                   love_freedom=p["love_freedom"], three_way_models=p["three_way_models"],
                                   by_foundation=p["by_foundation"])


def test_big_two_keeps_its_own_pieces_and_reads_back(pieces, tmp_path):
    res = _build("big_two", pieces)
    pub = res.results["published"]
    assert set(res.results) == {"published", "compute"} and pub.unit == "model"
    assert pub.models_per_family == {"Gemma": 3, "Llama": 3} and pub.n_panels == len(pub.panels) == 4
    assert pub.n_significant_fdr == sum(p.reject for p in pub.panels)
    assert {(p.category, p.valence) for p in pub.panels} == {(c, v) for c in ("Agency", "Communion")
                                                            for v in ("positive", "negative")}
    agreement = res.direction_agreement
    assert res.results["compute"].unit == "model" and (agreement.same, agreement.panels) == (3, 4)
    assert len(res.love_freedom) == 12 and {r.word for r in res.love_freedom} == {"w0", "w1"}
    assert all(1 <= r.rank <= r.n_words == 12 for r in res.love_freedom)
    assert res.three_way_models.claimed_sign == 1 and (res.three_way_models.n_a, res.three_way_models.n_b) == (3, 3)
    if pub.mixed is not None:
        assert res.three_way.term.count(":") == 2
    assert res.by_foundation is None  # the other chapter's piece
    write_results(res, tmp_path, chapter="big_two")
    assert read_results("big_two", tmp_path, results.ValueProfilesResults) == res
    with pytest.raises(ValueError):
        write_results(res, tmp_path)  # the type serves two chapters: say which


def test_moral_foundations_keeps_the_foundation_panels_only(pieces, tmp_path):
    only_published = {**pieces, "analyses": {"published": pieces["analyses"]["published"]}, "comparison": None}
    res = _build("moral_foundations", only_published, mode="published", dictionary="mfd2")
    assert res.love_freedom is None and res.three_way is None and res.three_way_models is None
    assert res.direction_agreement is None and set(res.results) == {"published"}
    assert {p.foundation for p in res.by_foundation.panels} == {"Agency", "Communion"}
    assert res.by_foundation.n_panels == 4 and res.by_foundation.models_per_family == {"Gemma": 3, "Llama": 3}
    write_results(res, tmp_path, chapter="moral_foundations")
    assert read_results("moral_foundations", tmp_path, results.ValueProfilesResults) == res
    with pytest.raises(ResultsError):
        read_results("big_two", tmp_path, results.ValueProfilesResults)  # not written


def test_a_chapter_or_lexicon_outside_the_choices_is_refused(pieces):
    with pytest.raises(ValueError):
        _build("values", pieces)
    with pytest.raises(ValueError):
        _build("big_two", pieces, dictionary="liwc")
