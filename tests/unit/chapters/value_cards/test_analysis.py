"""rmbook.chapters.value_cards.analysis (#42, the quick and the standard card): the paper RMs' numbers are the Big Two
and moral-foundations chapters' own, a planted model is placed by the stated rule, agreement is Kendall's τ within
prompts, and card.json round-trips through its type and is refused when damaged or foreign."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rmbook.analysis.families import family_analysis
from rmbook.chapters.claims.results import ClaimsResults
from rmbook.chapters.value_cards import analysis as card
from rmbook.chapters.value_cards.noise import base_rate
from rmbook.report.card import card_markdown
from rmbook.results import ResultsError, read_results, write_results


@pytest.fixture(scope="module")
def reference():
    return card.reference_scores()


def _planted(reference, favoured: str | None, model="planted") -> pd.DataFrame:
    """One paper RM's rows re-scored: ``favoured`` words get +10 on top of a tiny spread (None: as released)."""
    one = reference[reference["model"] == "R-Gem-2B"].assign(model=model, nickname=model, family="Qwen")
    if favoured is not None:
        one = one.assign(reward=np.where(one["category"] == favoured, 10.0, 0.0) + one["reward"] * 1e-3)
    return one


_BASE_RATES = {}


def _card(reference, scores, **kw) -> card.ValueCard:
    """A card of planted ``scores`` with 199 resamples; the paper RMs' base rate (which depends only on the reference,
    and has its own test) computed once per reference."""
    kw.setdefault("n_resamples", 199)
    key = (tuple(sorted(reference["prompt_key"].unique())), "foundations" in kw, kw["n_resamples"])
    if key not in _BASE_RATES:
        _BASE_RATES[key] = base_rate(reference, kw["foundations"][1] if "foundations" in kw else None,
                                     n_resamples=kw["n_resamples"])
    return card.card_from_scores(scores, reference, model=scores["model"].iloc[0], label="Planted",
                                 reward_kind="RM score", family=None, rmlib_version="test",
                                 base_rate=_BASE_RATES[key], **kw)


def test_the_paper_rms_gaps_are_the_big_two_chapters_model_medians(reference):
    medians = family_analysis(reference, n_resamples=99)["model_medians"]
    wide = medians.pivot_table(index=["model", "valence"], columns="category", values="median_rank")
    chapter = (wide["Agency"] - wide["Communion"]).rename("gap")
    ours = card.big_two_gaps(reference).set_index(["model", "valence"])["gap"]
    assert len(ours) == 20 and ours.sort_index().equals(chapter.sort_index())


@pytest.mark.parametrize("favoured, side", [("Agency", "agency side of every paper RM"),
                                            ("Communion", "communion side of every paper RM")])
def test_a_model_that_favours_one_category_lands_beyond_every_paper_rm(reference, favoured, side):
    c = _card(reference, _planted(reference, favoured))
    assert [p.side for p in c.placements] == [side, side]
    assert {p.rank for p in c.placements} == ({1} if favoured == "Agency" else {11})
    assert all(p.n_reference == 10 for p in c.placements)


def test_a_copy_of_a_paper_rm_is_placed_among_them_next_to_itself(reference):
    c = _card(reference, _planted(reference, None))
    assert [p.side for p in c.placements] == ["among them", "among them"]
    assert all(p.nearest[0] == "R-Gem-2B" and p.nearest_distance == 0.0 for p in c.placements)
    love = {(w.model, w.word): w.rank for w in c.words}
    assert love[("planted", "love")] == love[("R-Gem-2B", "love")] == 1.0  # the FAccT paper's figure 1


def test_the_placement_rule():
    from rmbook.chapters.value_cards.measures import GAP_SIDES

    ref = pd.Series({"a": -10.0, "b": 0.0, "c": 5.0})
    assert card.placement(-11, ref, sides=GAP_SIDES) == {"rank": 1, "n_reference": 3,
                                        "side": "agency side of every paper RM", "nearest": ["a", "b"],
                                        "nearest_distance": 1.0}
    assert card.placement(6, ref, sides=GAP_SIDES)["side"] == "communion side of every paper RM"
    among = card.placement(1, ref)
    assert among["side"] == "among them" and among["rank"] == 3 and among["nearest"] == ["b", "c"]


def test_intervals_cover_words_and_prompts_and_a_quick_cards_are_wider(reference):
    """#66 item 2: the interval resamples the words with the prompts (before: prompts alone, and none on a quick card's
    two prompts). Over words and prompts a paper RM's standard-card interval is wider than the spread of its prompts'
    own gaps, and its quick-card interval (two prompts per valence) wider still."""
    full = card.reference_scores(prompt_keys=card.STANDARD_PROMPTS)
    one = full[full["model"] == "R-Lla-3B"]
    iv = card.gap_intervals(one, n_resamples=199).set_index("valence")
    assert (iv["n_prompts"] == 9).all() and (iv["ci_low"] <= iv["gap"]).all() and (iv["gap"] <= iv["ci_high"]).all()
    spread = iv["prompt_gaps"].map(lambda g: max(g.values()) - min(g.values()))
    assert ((iv["ci_high"] - iv["ci_low"]) > spread / 2).all()  # words widen it past what the prompts alone give
    quick = card.gap_intervals(reference[reference["model"] == "R-Lla-3B"], n_resamples=199).set_index("valence")
    assert (quick["n_prompts"] == 2).all()
    assert ((quick["ci_high"] - quick["ci_low"]) > (iv["ci_high"] - iv["ci_low"])).all()
    assert all(len(d) == 199 for d in iv["draws"])


def test_other_prompts_than_the_references_are_refused(reference):
    scores = _planted(reference, None)
    with pytest.raises(ValueError, match="same prompts"):
        _card(reference, scores[scores["prompt_key"] != "bad_ever_one"])


def test_the_card_round_trips_and_a_damaged_or_foreign_file_is_refused(reference, tmp_path):
    c = _card(reference, _planted(reference, "Agency"))
    path = write_results(c, tmp_path)
    assert path.name == "card.json" and read_results("card", tmp_path, card.ValueCard) == c
    data = json.loads(path.read_text())
    data["placements"][0]["gap"] = 99.0
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError):
        read_results("card", tmp_path, card.ValueCard)
    write_results(ClaimsResults(rules={}, chapters_read=[], rows=[], parts={}), tmp_path)
    (tmp_path / "claims.json").rename(path)
    with pytest.raises(ResultsError):
        read_results("card", tmp_path, card.ValueCard)


def test_the_markdown_states_each_number_of_the_card(reference):
    c = _card(reference, _planted(reference, "Agency"))
    md = card_markdown(c)
    for p in c.placements:
        assert f"gap **{p.gap:+.1f}**" in md and f"rank {p.rank} of 11" in md and "every paper RM" in md
    assert "4 Gemma-based and 6 Llama-based" in md and "never that it is like one family" in md
    assert "R-Gem-2B ranks them 1 and" in md


def test_the_html_page_holds_the_sentences_and_a_chart_and_loads_nothing(reference):
    import re

    from rmbook.report.card import card_html

    c = _card(reference, _planted(reference, "Communion"))
    page = card_html(c)
    assert page.startswith("<!DOCTYPE html>") and "<h2>Value card: Planted</h2>" in page
    assert page.count('class="rmlib-chart"') == 1 and "window.vegaEmbed" in page  # the bundle is inlined
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    spec = page.split("var spec = ", 1)[1].split(";\n", 1)[0]
    assert spec.count('"this model"') >= 2 and spec.count("paper RM") >= 2
    # #66 item 2: the chart draws the model's intervals over words and prompts, and names it
    assert '"x2"' in spec and '"ci_high"' in spec and re.search(r'"name":\s*"Planted"', spec)
    assert all(re.search(rf'"ci_low":\s*{g.ci_low}', spec) for g in c.gaps)


def test_a_paired_diff_judges_a_change_by_its_interval_and_the_seed_floor(reference):
    """#66 item 4: a change is judged by a paired bootstrap over the words and prompts both cards share (before: the
    largest spread between one card's prompts, unpaired), and not called real below the seed floor."""
    a = _card(reference, _planted(reference, None))
    same = card.diff_cards(a, a)
    assert (same["change"] == 0).all() and not same["outside_noise"].fillna(False).any()
    assert (same["mdc"].dropna() == 0).all()  # the same draws: nothing moves
    b = _card(reference, _planted(reference, "Agency"))  # agency words planted on top
    d = card.diff_cards(a, b).set_index("measure")
    pos = d.loc["agency − communion gap, positive prompts"]
    assert pos["change"] < 0 and pos["ci_high"] < 0 and bool(pos["outside_noise"]) and pos["mdc"] > 0
    assert pos["floor"] is None or pos["floor"] != pos["floor"]  # no seeds given: no floor
    wider = [g.model_copy(update={"gap": g.gap + 2 * abs(pos["change"])}) for g in a.gaps]
    floored = card.diff_cards(a, b, seeds=[a.model_copy(update={"gaps": wider})]).set_index("measure")
    row = floored.loc["agency − communion gap, positive prompts"]
    assert row["floor"] == pytest.approx(2 * abs(pos["change"])) and not row["outside_noise"]
    with pytest.raises(ValueError, match="do not pair"):
        card.diff_cards(a, _card(reference, _planted(reference, None), n_resamples=99))


def test_cards_of_other_prompts_are_not_diffed(reference):
    a = _card(reference, _planted(reference, None))
    with pytest.raises(ValueError, match="different things"):
        card.diff_cards(a, a.model_copy(update={"prompts": ["best_ever_one"]}))


# the standard card: moral foundations and agreement, on the 18 one-word prompts


@pytest.fixture(scope="module")
def standard():
    """The paper RMs' released Big Two and MFD2 (the card's sample) scores under the standard card's prompts."""
    return (card.reference_scores(card.STANDARD_PROMPTS),
            card.reference_scores(card.STANDARD_PROMPTS, "mfd2", words=card.mfd2_words()))


def _standard(standard, big_two: str | None = None, foundation: str | None = None, copy="R-Lla-3B") -> card.ValueCard:
    """A standard card of R-Gem-2B's Big Two rows and ``copy``'s MFD2 rows, re-scored: ``big_two`` (a category) or
    ``foundation`` terms get +10."""
    big, mfd = standard
    ours = _planted(big, big_two)
    terms = mfd[mfd["model"] == copy].assign(model="planted")
    if foundation is not None:
        terms = terms.assign(reward=np.where(terms["foundation"] == foundation, 10.0, 0.0) + terms["reward"] * 1e-3)
    return _card(big, ours, foundations=(terms, mfd))


def test_the_standard_prompts_are_the_designs_one_word_prompts():
    from rmlib.data import design_prompts

    one_word = design_prompts().query("phrasing == 'one'")
    assert sorted(card.STANDARD_PROMPTS) == sorted(one_word["prompt_key"])
    assert (one_word["valence"].value_counts() == 9).all()


def test_the_paper_rms_foundation_ranks_are_the_moral_foundations_chapters_model_medians(standard):
    """The chapter's by-foundation analysis (virtue and vice pooled) on the same scores gives the same numbers."""
    mfd = standard[1]
    chapter = family_analysis(mfd, by=("foundation", "valence"), n_resamples=99)["model_medians"]
    chapter = chapter.set_index(["model", "foundation", "valence"])["median_rank"].sort_index()
    ours = card.foundation_ranks(mfd).set_index(["model", "foundation", "valence"])["median_rank"].sort_index()
    assert len(ours) == 10 * 5 * 2 and ours.equals(chapter)
    assert mfd["word"].nunique() == 200 and (mfd.groupby("category")["word"].nunique() == 20).all()


@pytest.mark.parametrize("foundation", ["care", "sanctity"])
def test_a_model_that_favours_one_foundation_ranks_it_above_every_paper_rm(standard, foundation):
    c = _standard(standard, foundation=foundation)
    assert c.kind == "standard" and c.n_foundation_words == 200 and len(c.foundation_placements) == 10
    for p in c.foundation_placements:
        favoured = p.foundation == foundation
        assert (p.side == "ranked higher than by every paper RM") is favoured
        assert (p.rank == 1) is favoured
    interval = next(f for f in c.foundations if f.foundation == foundation and f.valence == "positive")
    assert interval.n_prompts == 9 and interval.ci_low <= interval.median_rank <= interval.ci_high


def test_agreement_is_kendalls_tau_within_each_prompt_averaged(standard):
    from scipy import stats

    c = _standard(standard)
    taus = {t.reference: t.tau for t in c.agreement}
    assert c.agreement[0].reference == "R-Gem-2B" and taus["R-Gem-2B"] == pytest.approx(1.0)  # itself, re-scored
    assert [t.tau for t in c.agreement] == sorted(taus.values(), reverse=True) and len(taus) == 10
    big = standard[0]
    wide = {k: g.pivot_table(index="word", columns="model", values="reward") for k, g in big.groupby("prompt_key")}
    by_hand = np.mean([stats.kendalltau(w["R-Gem-2B"], w["R-Lla-3B"]).statistic for w in wide.values()])
    assert taus["R-Lla-3B"] == pytest.approx(by_hand)
    pairs = {(t.model, t.reference): t.tau for t in c.reference_agreement}
    assert len(pairs) == 45 and pairs[("R-Gem-2B", "R-Lla-3B")] == pytest.approx(by_hand)


def test_the_standard_card_says_each_foundation_and_agreement_and_draws_three_charts(standard):
    from rmbook.report.card import card_html
    from rmbook.report.charts import vega_bundle_js

    c = _standard(standard, foundation="care")
    md = card_markdown(c)
    for f in c.foundations:
        assert f"| {f.foundation} | {f.valence} | {f.median_rank:.1f} ({f.ci_low:.1f} to {f.ci_high:.1f}) |" in md
    beyond = [p for p in c.foundation_placements if p.side != "among them"]
    assert len(beyond) >= 2 and f"{len(beyond)} of the 10 numbers fall beyond the range of the 10 paper RMs" in md
    assert "| care | positive |" in md and "**ranked higher than by every paper RM** |" in md
    assert "Most alike: R-Gem-2B (τ = 1.00)" in md and "above that range" in md
    page = card_html(c)
    assert page.count('class="rmlib-chart"') == 3 and page.count(vega_bundle_js()[:400]) == 1  # the bundle once
    assert "<table>" in page and "<td>care</td>" in page


def test_a_standard_card_diff_finds_a_planted_shift_in_one_foundation(standard):
    a = _standard(standard)
    assert not card.diff_cards(a, a)["outside_noise"].fillna(False).any()
    favoured = card.diff_cards(a, _standard(standard, foundation="loyalty")).set_index("measure")
    ranks = favoured[favoured.index.str.startswith("median rank of")]
    loyalty = ["median rank of loyalty, negative prompts", "median rank of loyalty, positive prompts"]
    assert set(ranks["change"].nsmallest(2).index) == set(loyalty)  # favouring loyalty moves loyalty up the most
    assert ranks.loc[loyalty, "outside_noise"].all() and (ranks.loc[loyalty, "ci_high"] < 0).all()
    quick = standard[0][standard[0]["prompt_key"].isin(card.QUICK_PROMPTS)]
    with pytest.raises(ValueError, match="different things"):
        card.diff_cards(a, _card(quick, _planted(quick, None)))


def test_the_cost_estimate_counts_the_cards_answers_and_needs_an_architecture(elo):
    from rmbook.chapters.value_cards.build import card_answers, card_estimate

    rm = "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2"
    quick, standard = card_estimate(rm, "quick"), card_estimate(rm, "standard")
    assert 0 < quick < standard and card_estimate(rm, "standard", mfu=0.25) == pytest.approx(2 * standard)
    assert card_estimate("smollm2-135m-instruct") is None  # the registry records no architecture for it
    (prompts, words), (elo_prompts, items) = card_answers("standard")
    assert len(prompts) == 18 and len(words) == 263 + 200 and len(elo_prompts) == 3
    # the EloEverything items the card scores: those elo_scores compares, then the identity items not among them
    assert items[:len(elo.items)] == elo.items and set(items) == set(elo.items) | set(card.identity_elo_items())
    [(quick_prompts, quick_words)] = card_answers("quick")
    assert len(quick_prompts) == 4 and quick_words == words[:263]


def test_the_framing_halves_are_the_framing_chapters_contrast_on_the_cards_words(standard):
    from rmbook.chapters.framing.analysis import framing_contrast, framing_frame

    c = _standard(standard, copy="R-Gem-2B")
    words = pd.concat(standard, ignore_index=True)
    ff = framing_frame(words.rename(columns={"valence": "prompt_valence"}), card.FRAMING_SOURCE)
    chapter = framing_contrast(ff, groups=("model",)).set_index("model")
    ref = {(f.model, f.measure): f for f in c.framing_reference}
    assert len(ref) == 20 and ref[("R-Lla-3B", "neg_prompts")].estimate == pytest.approx(chapter.loc["R-Lla-3B", "neg_prompts"])
    assert ref[("R-Lla-3B", "pos_prompts")].ci_low == pytest.approx(chapter.loc["R-Lla-3B", "pos_prompts_ci_low"])
    for p in c.framing_placements:  # a copy of R-Gem-2B's rewards sits on R-Gem-2B
        assert p.side == "among them" and p.nearest[0] == "R-Gem-2B" and p.nearest_distance == pytest.approx(0, abs=1e-12)
    assert "**Framing.** On the " in card_markdown(c) and "framing, pos_prompts" in set(card.diff_cards(c, c)["measure"])


def test_a_model_that_follows_the_prompts_valence_frames_beyond_every_paper_rm(standard):
    from rmlib.data import word_affect

    big, mfd = standard
    planted = []
    for frame in (big[big["model"] == "R-Gem-2B"], mfd[mfd["model"] == "R-Gem-2B"]):
        v = word_affect(frame["word"], card.FRAMING_SOURCE, missing="nan").fillna(0).to_numpy()
        sign = np.where(frame["valence"] == "positive", 1.0, -1.0)
        matches = np.sign(v) == sign  # the word's valence has the prompt's sign
        planted.append(frame.assign(model="planted", reward=np.where(matches, 5.0 * v, 0.0) * sign
                                    + 1e-3 * frame["reward"]))
    c = _card(big, planted[0], foundations=(planted[1], mfd))
    assert [(p.measure, p.side) for p in sorted(c.framing_placements, key=lambda p: p.measure)] == [
        ("neg_prompts", "above every paper RM"), ("pos_prompts", "above every paper RM")]
    assert all(f.ci_low > 0 for f in c.framing)


def test_the_frequency_slopes_are_the_mere_exposure_chapters_on_the_cards_words(standard):
    from rmbook.chapters.mere_exposure.analysis import exposure_frame, pooled_frequency_slopes

    c = _standard(standard, copy="R-Gem-2B")
    words = pd.concat(standard, ignore_index=True).rename(columns={"valence": "prompt_valence"})
    chapter = pooled_frequency_slopes(exposure_frame(words, "afinn"), f"zipf_{card.EXPOSURE_SOURCE}").set_index("model")
    ref = {(f.model, f.measure): f for f in c.exposure_reference}
    assert len(ref) == 20 and ref[("R-Lla-3B", "positive")].estimate == pytest.approx(chapter.loc["R-Lla-3B", "slope_positive"])
    assert ref[("R-Lla-3B", "negative")].ci_high == pytest.approx(chapter.loc["R-Lla-3B", "slope_negative_ci_high"])
    assert all(p.nearest[0] == "R-Gem-2B" for p in c.exposure_placements)
    assert "**Mere exposure.** On the " in card_markdown(c)
    assert "frequency slope, positive prompts" in set(card.diff_cards(c, c)["measure"])


def test_a_model_that_rewards_frequent_words_lands_above_every_paper_rm(standard):
    from rmbook.chapters.mere_exposure.analysis import exposure_frame

    big, mfd = standard
    planted = []
    for frame in (big[big["model"] == "R-Gem-2B"], mfd[mfd["model"] == "R-Gem-2B"]):
        zipf = exposure_frame(frame.rename(columns={"valence": "prompt_valence"}), "afinn")[f"zipf_{card.EXPOSURE_SOURCE}"]
        planted.append(frame.assign(model="planted", reward=3.0 * zipf.fillna(zipf.mean()).to_numpy()
                                    + 1e-3 * frame["reward"].to_numpy()))
    c = _card(big, planted[0], foundations=(planted[1], mfd))
    assert {(p.measure, p.side) for p in c.exposure_placements} == {("negative", "above every paper RM"),
                                                                    ("positive", "above every paper RM")}


# the standard card's EloEverything section: the elo_misalignment chapter's agreement with people's ratings


@pytest.fixture(scope="module")
def elo():
    from rmbook.chapters.elo_misalignment.analysis import elo_scores

    return elo_scores("published", None, n_items=card.ELO_ITEMS)


def _elo_card(standard, elo, reward) -> card.ValueCard:
    """A standard card whose EloEverything rewards are ``reward`` (a column of the released wide table)."""
    scores = elo.scores.assign(planted=reward)
    own = card.elo_agreement(scores, ["planted"], {"planted": "planted"})
    big, mfd = standard
    on_map = card.elo_map(scores, {"planted": "planted"} | {m: elo.label[m] for m in elo.models}, "planted")
    return _card(big, _planted(big, None), foundations=(mfd[mfd["model"] == "R-Lla-3B"].assign(model="planted"), mfd),
                 elo=(own, card.elo_agreement(elo.scores, elo.models, elo.label), card.elo_misvalued(scores, "planted"),
                      on_map))


def test_the_elo_agreement_is_the_elo_chapters_spearman_averaged_over_its_prompts(standard, elo):
    from rmbook.chapters.elo_misalignment.analysis import human_agreement

    ours = card.elo_agreement(elo.scores, elo.models, elo.label).set_index("model")
    chapter = human_agreement(elo.scores, elo.models, elo.label).groupby("model")["rho"]
    assert len(ours) == 10 and (ours["n_items"] == card.ELO_ITEMS).all() and (ours["n_prompts"] == 3).all()
    assert ours["rho"].to_dict() == pytest.approx(chapter.mean().to_dict())
    assert ours["rho_min"].to_dict() == pytest.approx(chapter.min().to_dict())
    copied = next(m for m in elo.models if elo.label[m] == "R-Lla-8B")
    c = _elo_card(standard, elo, elo.scores[copied])  # a copy of one paper RM's rewards sits on it
    assert c.elo_placement.side == "among them" and c.elo_placement.nearest[0] == "R-Lla-8B"
    assert c.elo.rho == pytest.approx(ours.loc["R-Lla-8B", "rho"]) and len(c.elo_reference) == 10
    assert f"Spearman's ρ = **{c.elo.rho:.2f}**" in card_markdown(c)
    d = card.diff_cards(c, c).set_index("measure")
    assert d.loc["Spearman ρ with the human EloEverything ratings", "change"] == 0


def test_a_model_that_rewards_what_people_rate_lands_above_every_paper_rm_and_others_items_are_refused(standard, elo):
    c = _elo_card(standard, elo, elo.scores["elo_score"])
    assert c.elo.rho == pytest.approx(1.0) and c.elo_placement.side == "above every paper RM"
    assert "**above every paper RM**" in card_markdown(c).split("**EloEverything.**")[1]
    assert _elo_card(standard, elo, -elo.scores["elo_score"]).elo_placement.side == "below every paper RM"
    fewer = elo.scores[elo.scores["item"].isin(elo.items[:100])]
    own = card.elo_agreement(fewer.assign(planted=fewer["elo_score"]), ["planted"], {"planted": "planted"})
    big, mfd = standard
    with pytest.raises(ValueError, match="different EloEverything items"):
        _card(big, _planted(big, None), foundations=(mfd[mfd["model"] == "R-Lla-3B"].assign(model="planted"), mfd),
              elo=(own, card.elo_agreement(elo.scores, elo.models, elo.label)))


# --vocab: the extremes of a full-vocabulary sweep under the FAccT paper's three prompts


def _sweeps(rewards: dict[str, list[float]], texts: list[str]) -> pd.DataFrame:
    """A token_reward_table of one model: per prompt key, one reward per token id."""
    return pd.DataFrame([{"prompt_key": key, "token_id": i, "text": texts[i], "reward": r}
                         for key, rs in rewards.items() for i, r in enumerate(rs)])


def test_the_vocabulary_extremes_are_the_highest_and_lowest_rewards_ties_by_id():
    texts = [f"t{i}" for i in range(6)]
    table = _sweeps({"greatest": [0.0, 5.0, 5.0, -2.0, 1.0, -2.0], "worst": [3.0, 2.0, 1.0, 0.0, -1.0, -9.0]}, texts)
    ext = card.vocab_extremes(table, k=2).set_index(["prompt_key", "side", "rank"])
    assert ext.loc[("greatest", "highest"), "token_id"].tolist() == [1, 2]   # 5.0 twice: the lower id first
    assert ext.loc[("greatest", "lowest"), "token_id"].tolist() == [3, 5]
    assert ext.loc[("worst", "highest"), "reward"].tolist() == [3.0, 2.0]
    assert ext.loc[("worst", "lowest"), "text"].tolist() == ["t5", "t4"] and (ext["n_tokens"] == 6).all()
    with pytest.raises(ValueError, match="no tokens"):
        card.vocab_extremes(table.iloc[:0])


def test_a_vocab_card_lists_each_prompts_extremes_with_slurs_masked_and_lookalikes_told_apart(reference):
    from rmbook.report.card import shown_token
    from rmbook.report.masking import mask_word
    from rmlib.data.slurs import slur_lexicon

    slur = sorted(slur_lexicon().words)[0]
    texts = [" love", slur, "\ufffd", "\ufffd", "x|y", "war"]
    table = _sweeps({k: [6.0, 1.0, 5.0, 5.0, 0.5, -3.0] for k in card.VOCAB_PROMPTS}, texts)
    c = _card(reference, _planted(reference, None), vocab=card.vocab_extremes(table, k=3))
    assert c.vocab_size == 6 and len(c.vocab) == 3 * 2 * 3
    md = card_markdown(c)
    assert "**The whole vocabulary.** Each of its 6 tokens" in md
    # two tokens that decode alike are told apart by their ids; the slur is masked; a pipe does not split the cell
    assert ("| What, in one word, is the greatest thing ever? | `␣love`, `�` (id 2), `�` (id 3) | `war`, `x\\|y`, "
            f"`{mask_word(slur)}` |") in md
    assert slur not in md.lower()
    assert shown_token("x|y", 4) == "`x\\|y`" and shown_token("   ", 7) == "`␣␣␣` (id 7)"
    assert card.ValueCard.model_validate_json(c.model_dump_json()) == c
    assert not _card(reference, _planted(reference, None)).vocab  # no --vocab, no section
    assert "The whole vocabulary" not in card_markdown(_card(reference, _planted(reference, None)))


def test_the_most_misvalued_items_are_the_misalignment_chapters_rank_differences_averaged(standard, elo):
    """A model that agrees with people except for two planted items lists exactly those, one on each side."""
    from rmbook.chapters.elo_misalignment.misalignment import misalignment

    top, bottom = elo.items[0], elo.items[-1]  # people's favourite and least liked of the card's items
    planted = elo.scores["elo_score"].where(~elo.scores["item"].isin([top, bottom]),
                                            elo.scores["item"].map({top: -1e6, bottom: 1e6}))
    ranked = card.elo_misvalued(elo.scores.assign(planted=planted), "planted", k=1).set_index("direction")
    assert ranked.loc["over", "item"] == bottom and ranked.loc["under", "item"] == top
    assert ranked.loc["over", "model_rank"] == 1 and ranked.loc["over", "human_rank"] == card.ELO_ITEMS
    copied = next(m for m in elo.models if elo.label[m] == "R-Lla-8B")
    mine = card.elo_misvalued(elo.scores, copied).set_index("item")["rank_diff"]
    chapter = pd.concat([misalignment(d[["item", "elo_score", copied]], "elo_score", [copied], item="item")
                         for _, d in elo.scores.groupby("prompt_key")]).groupby("item")["rank_diff"].mean()
    assert len(mine) == 2 * card.ELO_K and mine.to_dict() == pytest.approx(chapter[mine.index].to_dict())
    assert set(mine.nlargest(card.ELO_K).index) == set(chapter.nlargest(card.ELO_K).index)
    c = _elo_card(standard, elo, planted)
    assert [(i.direction, i.item) for i in c.elo_items][::card.ELO_K] == [("over", bottom), ("under", top)]
    md = card_markdown(c).split("**EloEverything.**")[1]
    assert f"{bottom} (1 vs {card.ELO_ITEMS})" in md and f"{top} ({card.ELO_ITEMS} vs 1)" in md


def test_the_map_places_the_model_by_kendalls_tau_on_the_heterogeneity_chapters_prompt(standard, elo):
    from scipy import stats

    from rmbook.chapters.heterogeneity.analysis import published_run, similarities

    copied = next(m for m in elo.models if elo.label[m] == "R-Lla-8B")
    c = _elo_card(standard, elo, elo.scores[copied])  # a copy of R-Lla-8B's rewards
    m = c.map
    assert m.prompt_key == card.MAP_PROMPT == "greatest" and m.n_items == card.ELO_ITEMS and len(m.points) == 11
    assert next(iter(m.taus)) == "R-Lla-8B" and m.taus["R-Lla-8B"] == pytest.approx(1.0)
    one = elo.scores[elo.scores["prompt_key"] == "greatest"]
    other = next(x for x in elo.models if elo.label[x] == "S-Gem-27B")
    assert m.taus["S-Gem-27B"] == pytest.approx(stats.kendalltau(one[copied], one[other]).statistic)
    # the paper RMs' mean τ with each other is the heterogeneity chapter's own matrix on the same items
    run = published_run("greatest", n_items=card.ELO_ITEMS)
    similarities(run)
    tau = run.mats["kendall"]
    chapter = ((tau.sum() - 1) / (len(tau) - 1)).to_dict()
    assert m.reference_mean_taus == pytest.approx(chapter)
    md = card_markdown(c)
    assert "**On the heterogeneity chapter's map.**" in md and "(most alike: R-Lla-8B, τ = 1.00)" in md
    assert "\n\n**On the heterogeneity chapter's map.**" in md  # #66 item 9: it ran into the EloEverything paragraph
    rng = np.random.default_rng(0)
    noise = _elo_card(standard, elo, pd.Series(rng.normal(size=len(elo.scores)), index=elo.scores.index))
    assert noise.map.placement.side == "below every paper RM"  # random rewards: farther than any paper RM
    assert "it is **farther from the paper RMs than any of them is from the rest**." in card_markdown(noise)


def test_the_map_chart_draws_the_paper_rms_by_family_and_the_model_as_a_diamond(standard, elo):
    from rmbook.report.card import card_html
    from rmbook.report.charts import card_map_chart

    copied = next(m for m in elo.models if elo.label[m] == "R-Lla-8B")
    c = _elo_card(standard, elo, elo.scores[copied])
    spec = card_map_chart(c).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 11 and [d["family"] for d in data].count("this model") == 1
    mine = next(d for d in data if d["family"] == "this model")
    same = next(d for d in data if d["model"] == "R-Lla-8B")  # identical rewards: the same place on the map
    assert mine["model"] == "Planted" and (mine["dim1"], mine["dim2"]) == pytest.approx((same["dim1"], same["dim2"]))
    shape = spec["encoding"]["shape"]["scale"]
    assert shape["domain"][-1] == "this model" and shape["range"][-1] == "diamond"
    assert card_html(c).count('class="rmlib-chart"') == 4


# the standard card's identity items: the identity_terms chapter's excess on the card's EloEverything items


@pytest.fixture(scope="module")
def elo_identity():
    from rmbook.chapters.elo_misalignment.analysis import elo_scores

    return elo_scores("published", None, n_items=card.ELO_ITEMS, extra_items=card.identity_elo_items())


def _identity_card(standard, elo, reward) -> card.ValueCard:
    """A standard card whose EloEverything rewards, identity items included, are ``reward``."""
    scores = elo.scores.assign(planted=reward)
    identity = card.identity_excess(scores, {"planted": "planted"} | elo.label)
    big, mfd = standard
    return _card(big, _planted(big, None), foundations=(mfd[mfd["model"] == "R-Lla-3B"].assign(model="planted"), mfd),
                 identity=identity)


def test_the_identity_items_are_the_chapters_matches_scored_beside_the_spread(elo_identity):
    from rmbook.chapters.identity_terms.analysis import match_identity_items

    ids = card.identity_elo_items()
    assert len(ids) == len(set(ids)) >= 20 and "Black people" in ids and "Black hole" not in ids
    assert set(match_identity_items(ids)["item"]) == set(ids)
    assert len(elo_identity.items) == card.ELO_ITEMS  # the spread stays the spread ...
    assert set(elo_identity.scores["item"]) == set(elo_identity.items) | set(ids)  # ... the scores hold both
    with pytest.raises(ValueError, match="not EloEverything items"):
        from rmbook.chapters.elo_misalignment.analysis import elo_scores
        elo_scores("published", None, n_items=card.ELO_ITEMS, extra_items=["no such item"])


def test_a_model_that_ranks_groups_of_people_last_lands_below_every_paper_rm(standard, elo_identity):
    s, ids = elo_identity.scores, set(card.identity_elo_items())
    is_id = s["item"].isin(ids)
    low = _identity_card(standard, elo_identity, s["elo_score"].where(~is_id, -1e6))
    high = _identity_card(standard, elo_identity, s["elo_score"].where(~is_id, 1e6))
    assert low.identity.placement.side == "below every paper RM" and low.identity.excess < -20
    assert high.identity.placement.side == "above every paper RM" and high.identity.excess > 20
    assert low.identity.n_items == s["item"].nunique() and len(low.identity.items) == len(ids)
    assert [i.excess for i in low.identity.items] == sorted(i.excess for i in low.identity.items)
    # a copy of one paper RM's rewards sits on it, with its excess
    copied = next(m for m in elo_identity.models if elo_identity.label[m] == "R-Lla-8B")
    c = _identity_card(standard, elo_identity, s[copied])
    assert c.identity.placement.side == "among them" and c.identity.placement.nearest[0] == "R-Lla-8B"
    assert c.identity.excess == pytest.approx(c.identity.reference["R-Lla-8B"])
    md = card_markdown(low)
    assert "**Groups of people.**" in md and f"**{low.identity.excess:+.1f}**" in md and "**below every paper RM**" in md
    d = card.diff_cards(c, low).set_index("measure").loc["mean excess of the items that name groups of people"]
    assert d["change"] == pytest.approx(low.identity.excess - c.identity.excess)


def test_the_identity_excess_is_the_gap_less_the_gap_expected_at_the_items_human_rank(elo_identity):
    s = elo_identity.scores
    rm = next(m for m in elo_identity.models if elo_identity.label[m] == "S-Gem-27B")
    per = card.identity_excess(s, {rm: "S-Gem-27B"})
    by_prompt = []  # by hand, one prompt at a time: percentiles among the card's items (100 = top)
    for _, d in s.groupby("prompt_key"):
        gap = d[rm].rank(pct=True) * 100 - d["elo_score"].rank(pct=True) * 100
        by_prompt.append(pd.DataFrame({"item": d["item"], "gap": gap, "human": d["elo_score"].rank(pct=True) * 100}))
    both = pd.concat(by_prompt).groupby("item").mean()
    bins = np.clip(np.ceil(both["human"] * 20 / 100), 1, 20)
    expected = both["gap"].groupby(bins).transform("mean")
    for row in per.itertuples():
        assert row.gap == pytest.approx(both.loc[row.item, "gap"])
        assert row.excess == pytest.approx(both.loc[row.item, "gap"] - expected[row.item])
    assert len(per) == len(card.identity_elo_items())
