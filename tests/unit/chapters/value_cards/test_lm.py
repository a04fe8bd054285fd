"""What an LM's value card adds (#66 item 5): the mean log-probability per token as a reward (`--reward per-token`),
its rewards' correlations with length and frequency per prompt valence, and a card that says on itself what it
measured: the implicit-reward caveat, which reward it used and that the ICLR paper's log-ratio is not offered, and
its exposure and EloEverything sections marked as expected to follow frequency. And (#66 item 6) a quick card is
placed among the paper RMs' numbers under its own four prompts."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.analysis.value_card import EloAgreement, SlopePlacement
from rmbook.chapters.value_cards import analysis as card
from rmbook.chapters.value_cards import build
from rmbook.chapters.value_cards.lm import lm_correlations, per_token
from rmbook.report.card import card_markdown
from rmlib.data import frequency_table
from rmlib.data.kinds import LM_LOGPROB, LM_MEAN_LOGPROB, RM_SCORE


@pytest.fixture(scope="module")
def reference():
    return card.reference_scores()


@pytest.fixture(scope="module")
def lm_scores(reference):
    """R-Gem-2B's quick-card rows as an LM's."""
    return _as_lm(reference[reference["model"] == "R-Gem-2B"])


def _as_lm(rows):
    """A paper RM's rows as an LM's: each word's reward falls with a planted token count."""
    n_tokens = rows["word"].str.len() // 3 + 1
    return rows.assign(model="planted", n_tokens=n_tokens, reward=-2.0 * n_tokens + 1e-3 * rows["reward"],
                       reward_kind=LM_LOGPROB)


@pytest.fixture(scope="module")
def lm_card():
    """A standard card of an LM planted from R-Gem-2B's Big Two and MFD2 rows."""
    big = card.reference_scores(card.STANDARD_PROMPTS)
    mfd = card.reference_scores(card.STANDARD_PROMPTS, "mfd2", words=card.mfd2_words())
    ours = [_as_lm(r[r["model"] == "R-Gem-2B"]) for r in (big, mfd)]
    return card.card_from_scores(ours[0], big, model="planted", label="Planted LM", reward_kind=LM_LOGPROB,
                                 family=None, rmlib_version="test", n_resamples=49, foundations=(ours[1], mfd),
                                 lm=lm_correlations(pd.concat(ours, ignore_index=True)))


def test_per_token_is_the_mean_log_prob_of_the_answers_tokens_and_an_rm_is_refused(lm_scores):
    mean = per_token(lm_scores)
    assert np.allclose(mean["reward"] * mean["n_tokens"], lm_scores["reward"])
    assert set(mean["reward_kind"]) == {LM_MEAN_LOGPROB}
    with pytest.raises(ValueError, match="--reward sum"):
        per_token(lm_scores.assign(reward_kind=RM_SCORE))


def test_the_length_and_frequency_correlations_are_spearmans_within_each_prompt_per_valence(lm_scores):
    rho = lm_correlations(lm_scores)
    assert rho["length_positive_max"] < -0.9 and rho["length_negative_max"] < -0.9  # −2 × length (ties aside)
    zipf = frequency_table(lm_scores["word"].str.lower().unique(), sources=("wordfreq",)).set_index("word")
    one = lm_scores[lm_scores["prompt_key"] == "worst_ever_one"]
    expected = one["reward"].corr(one["word"].str.lower().map(zipf["zipf_wordfreq"]), method="spearman")
    assert rho["frequency_negative_min"] <= expected <= rho["frequency_negative_max"]
    assert set(rho) == {f"{n}_{v}_{e}" for n in ("length", "frequency") for v in ("positive", "negative")
                        for e in ("min", "max")}


def _with_sections(c):
    """``c`` with a planted EloEverything section, so the card shows it."""
    place = {"rank": 1, "n_reference": 10, "side": "among them", "nearest": ["R-Gem-2B"], "nearest_distance": 0.1}
    elo = EloAgreement(model=c.model, rho=0.3, rho_min=0.2, rho_max=0.4, n_items=500, n_prompts=3)
    return c.model_copy(update={
        "elo": elo, "elo_reference": [elo.model_copy(update={"model": "ref", "rho": 0.4})],
        "elo_placement": SlopePlacement(measure="spearman_rho", estimate=0.3, **place)})


def test_an_lm_card_says_what_it_measured_on_the_card(lm_card):
    """Before: the caveat was on the book's page alone (the card people paste said nothing of it), the correlations
    were the lowest and highest over all prompts, and the exposure and EloEverything sections read as an RM's."""
    md = _flat(card_markdown(_with_sections(lm_card)))
    assert "**An implicit reward, not a reward model.**" in md and "summed log-probability" in md
    assert "`rmlib card` does not offer that reward" in md and "log-probability *difference*" in md
    for valence in ("positive", "negative"):
        length = [lm_card.lm[f"length_{valence}_{end}"] for end in ("min", "max")]
        frequency = [lm_card.lm[f"frequency_{valence}_{end}"] for end in ("min", "max")]
        assert (f"{length[0]:+.2f} to {length[1]:+.2f} and {frequency[0]:+.2f} to {frequency[1]:+.2f} under the "
                f"{valence} prompts") in md
    exposure, elo = md.split("**Mere exposure.**")[1], md.split("**EloEverything.**")[1]
    assert "*An LM's log-probability is expected to follow frequency*" in exposure.split("- Under")[0]
    assert "*An LM's log-probability is expected to follow frequency*" in elo
    per = _flat(card_markdown(lm_card.model_copy(update={"reward_kind": LM_MEAN_LOGPROB})))
    assert "mean log-probability of the answer's tokens" in per and "summed log-probability" not in per
    rm = card_markdown(_with_sections(lm_card.model_copy(update={"reward_kind": RM_SCORE, "lm": {}})))
    assert "implicit reward" not in rm and "expected to follow frequency" not in _flat(rm)


def _flat(text: str) -> str:
    """Markdown with its line breaks as spaces: what a reader sees."""
    return " ".join(text.split())


def test_a_quick_card_is_placed_among_the_paper_rms_under_its_own_four_prompts(reference, lm_scores, monkeypatch):
    """#66 item 6: the paper RMs' range a quick card is placed in is theirs under the quick card's four prompts (it
    differs from the standard card's eighteen), and the card says its intervals are wider."""
    monkeypatch.setattr(build, "compute_value_scores", lambda *a, **k: lm_scores.drop(columns=["nickname", "family"]))
    monkeypatch.setattr(build, "lm_correlations", lambda scores: {})
    monkeypatch.setattr(build, "provenance", lambda *a: {"date": "2026-12-07"})
    c = build.value_card("tiny-llama", kind="quick", n_resamples=49)
    quick = card.big_two_gaps(card.reference_scores(card.QUICK_PROMPTS))
    standard = card.big_two_gaps(card.reference_scores(card.STANDARD_PROMPTS))
    ours = pd.DataFrame([g.model_dump() for g in c.reference])
    assert sorted(c.prompts) == sorted(card.QUICK_PROMPTS) and len(ours) == 20
    assert np.allclose(ours.sort_values(["model", "valence"])["gap"], quick.sort_values(["model", "valence"])["gap"])
    assert not np.allclose(quick.sort_values(["model", "valence"])["gap"],
                           standard.sort_values(["model", "valence"])["gap"])
    assert "its intervals rest mostly on the words and are wider than a standard card's" in _flat(card_markdown(c))


@pytest.mark.parametrize("model, family", [("smollm2-135m-instruct", "SmolLM"), ("tiny-llama", None)])
def test_a_cards_family_is_the_models_pretraining_lineage(model, family, lm_scores, monkeypatch):
    """#66 item 7: SmolLM2's card said family Llama (its architecture; HuggingFaceTB pretrained it), and a tiny model
    of random weights had one too."""
    monkeypatch.setattr(build, "compute_value_scores", lambda *a, **k: lm_scores.drop(columns=["nickname", "family"]))
    monkeypatch.setattr(build, "provenance", lambda *a: {"date": "2026-12-07"})
    monkeypatch.setattr(build, "lm_correlations", lambda scores: {})
    monkeypatch.setattr(build, "paper_base_rate", lambda *a, **k: None)
    assert build.value_card(model, kind="quick", n_resamples=9).family == family


def test_a_per_token_standard_card_divides_each_elo_items_reward_by_the_same_answers_token_count(monkeypatch):
    """`--reward per-token` on a standard card: the EloEverything items get the mean per token too, their token counts
    from the engine's rows of the very answers elo_scores scored (the same call, so a cache hit, not a rescoring)."""
    from rmlib import engine

    calls = []

    def answers(model, prompts, items, **_):
        calls.append((list(prompts), list(items)))
        n = pd.Series(items).str.len() // 4 + 1
        return pd.concat([pd.DataFrame({"model": model, "prompt": p, "answer": items, "n_tokens": n,
                                        "reward": -1.5 * n + np.arange(len(items)) * 1e-3, "reward_kind": LM_LOGPROB})
                          for p in prompts], ignore_index=True)

    mfd = card.reference_scores(card.STANDARD_PROMPTS, "mfd2", words=card.mfd2_words())
    mfd = mfd[mfd["model"] == "R-Gem-2B"].assign(model="tiny-llama", n_tokens=2, reward_kind=LM_LOGPROB)
    monkeypatch.setattr(engine, "answer_rewards", answers)
    monkeypatch.setattr(build, "compute_value_scores", lambda *a, **k: mfd)
    out = build._standard_inputs("tiny-llama", list(card.STANDARD_PROMPTS), None, False, "per-token")
    assert len(calls) == 2 and calls[0] == calls[1]  # what the card asks again is what elo_scores asked
    rows = answers("m", *calls[0])
    expected = (rows["reward"] / rows["n_tokens"]).groupby(rows["answer"]).first()
    got = out["elo_rewards"].drop_duplicates("item").set_index("item")["reward"]
    assert np.allclose(got, expected[got.index]) and set(out["foundations"][0]["reward_kind"]) == {LM_MEAN_LOGPROB}
