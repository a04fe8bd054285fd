"""rmbook.chapters.value_profiles.results: the big_two and moral_foundations results (one type) built section by
section from planted value scores, each keeping only its own chapter's pieces, stored and read back; the builders
compute what the sentences state (the significant panels, the smallest p's, which family ranks what higher)."""
from __future__ import annotations

import pytest

from rmbook.analysis import families as fam, values as vp
from rmbook.chapters.value_profiles import results
from rmbook.results import ResultsError, read_results, write_results

FAMILIES = ["Gemma", "Llama"]


_PIECES: dict = {}


@pytest.fixture
def pieces(family_scores):
    """One planted family analysis (fitting one takes a second) standing in for both tables and, with its panels
    renamed, for the by-foundation analysis; the comparison with the published panels is planted."""
    if not _PIECES:
        scores = family_scores(n_per_family=3, n_words=12, effect=3.0)
        res = fam.family_analysis(scores, families=FAMILIES, n_resamples=99)
        pooled = scores.rename(columns={"category": "foundation"})
        by_foundation = fam.family_analysis(pooled, by=["foundation", "valence"], families=FAMILIES, n_resamples=99)
        ranks = vp.word_ranks(scores, ["w0", "w1"], "greatest_ever_one")
        _PIECES.update(
            scores=scores, analyses={"published": res, "compute": res},
            comparison={"same": 3, "panels": 4, "n_prompts": 4, "n_words": 12, "n_significant": 1, "unit": "model",
                        "implicit": False},
            love_freedom=ranks, pair=vp.word_pair_table(ranks, "w0", "w1"),
            three_way_models=fam.interaction_test(res["median_ranks"], families=FAMILIES, n_resamples=99),
            by_foundation=by_foundation, pooled=pooled)
    return _PIECES


def _build(chapter, p, mode="compute", dictionary="big2"):
    tables = {k: p["scores"] for k in p["analyses"]}
    summaries = {k: results.family_summary(k, r, p["scores"], FAMILIES) for k, r in p["analyses"].items()}
    return results.chapter_results(
        chapter, mode, dictionary, FAMILIES, results.scored(tables), results.left_out(tables, p["analyses"], FAMILIES),
        summaries, results.direction_agreement(p["comparison"], FAMILIES), love_freedom=p["love_freedom"],
        pair=results.word_pair(p["pair"], p["love_freedom"], "w0", "w1", lexicon="words", models=["gemma-0"]),
        three_way_models=results.interaction(p["three_way_models"]),
        by_foundation=results.foundation_summary(p["by_foundation"], p["pooled"], FAMILIES))


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
    # what the sentences state is computed by the builders
    assert pub.significant == [f"{p.category}, {p.valence}" for p in pub.panels if p.reject]
    assert [r.p for r in pub.smallest] == sorted(p.p for p in pub.panels)[:results.TOP_PANELS]
    assert all(r.higher == ("Gemma" if r.mean_a < r.mean_b else "Llama") for r in pub.smallest)
    positive = next(d for d in pub.directions if d.valence == "positive")
    assert [m.name for m in positive.first] == ["Agency"] and [m.name for m in positive.second] == ["Communion"]
    assert [a.name for a in pub.anova_lines] == ["category", "category × valence", "category × valence × model"]
    assert pub.anova_lines[0].F == pub.anova["category"].F and pub.n_a == pub.n_b == 3
    assert res.scored.n_published == 6 and res.scored.published_per_family == {"Gemma": 3, "Llama": 3}
    assert res.scored.computed.positive == ["best", "greatest"] and res.scored.computed.n_design == 54
    assert res.left_out.families == {} and agreement.n_significant == 1 and not agreement.implicit
    assert res.word_pair.scored and [m.nickname for m in res.word_pair.named] == ["gemma-0"]
    assert sum(f.n_models for f in res.word_pair.by_family) == 6
    t = res.three_way_models
    assert t.claimed_way == (t.difference * t.claimed_sign > 0) and t.significant == (t.p < results.ALPHA)
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
    assert res.by_foundation.pooled and res.by_foundation.by == ["foundation", "valence"]
    assert res.word_pair is None and res.scored.computed is None
    write_results(res, tmp_path, chapter="moral_foundations")
    assert read_results("moral_foundations", tmp_path, results.ValueProfilesResults) == res
    with pytest.raises(ResultsError):
        read_results("big_two", tmp_path, results.ValueProfilesResults)  # not written


def test_a_chapter_or_lexicon_outside_the_choices_is_refused(pieces):
    with pytest.raises(ValueError):
        _build("values", pieces)
    with pytest.raises(ValueError):
        _build("big_two", pieces, dictionary="liwc")
