"""The distributions chapter's sentences (templates/distributions.md.j2), rendered from its results sections as the
chapter does: the run line counts models, answers and implicit rewards (one model, one LM: singular); the skew
sentence counts only CIs that exclude 0 and names the most asymmetric distribution; the tails name the dominant kind;
the word shares are the is_word feature's alone."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.distributions import results
from rmbook.report.prose import render


def _run(sizes: dict[str, int], kinds: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "reward_kind": kinds[m], "reward": float(i)}
                         for m, n in sizes.items() for i in range(n)])


def _run_line(name, sizes, kinds) -> str:
    return render("distributions", "run", s=results.answer_set(name, _run(sizes, kinds)))


def test_run_line_with_equal_sizes_and_only_reward_models():
    text = _run_line("published", {"a": 4, "b": 4, "c": 4}, {m: "RM score (published)" for m in "abc"})
    assert text == "**published**: 3 models × 4 answers each. All are reward models."


def test_run_line_with_unequal_sizes_names_the_range_and_the_implicit_rewards():
    text = _run_line("compute", {"lm1": 3, "lm2": 1200, "rm": 5},
                     {"lm1": "LM log-prob", "lm2": "LM log-prob", "rm": "RM score"})
    assert text == ("**compute**: 3 models × 3 to 1,200 answers each. 2 are LMs whose reward is the log-probability "
                    "of the answer (an **implicit** reward).")


def test_one_model_and_one_lm_are_singular():
    assert _run_line("compute", {"tiny": 7}, {"tiny": "RM score"}) == ("**compute**: 1 model × 7 answers. "
                                                                       "It is a reward model.")
    lm = _run_line("compute", {"tiny": 7}, {"tiny": "LM log-prob"})
    assert lm.startswith("**compute**: 1 model × 7 answers. It is an LM whose reward is the log-probability")
    mixed = _run_line("compute", {"lm": 5, "rm": 5}, {"lm": "LM log-prob", "rm": "RM score"})
    assert "2 models × 5 answers each. 1 is an LM whose reward" in mixed and "1 are" not in mixed


def _moments() -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [("A", "published", -1.8, -2.4, -1.1),   # negative, CI excludes 0: the most asymmetric
            ("B", "published", 0.6, 0.2, 1.0),      # positive, CI excludes 0
            ("C", "compute", -0.3, -0.9, 0.4),      # CI includes 0: neither count
            ("D", "compute", 1.2, -0.1, 2.5)]       # large but its CI includes 0
    mom = pd.DataFrame([{"model": m, "run": r, "moment": "skewness", "estimate": e, "ci_low": lo, "ci_high": hi,
                         "n": 100, "model_run": f"{m} · {r}"} for m, r, e, lo, hi in rows])
    # a kurtosis row far larger than any skewness must not be named as the most asymmetric
    mom = pd.concat([mom, pd.DataFrame([{"model": "B", "run": "published", "moment": "kurtosis", "estimate": 9.0,
                                         "ci_low": 7.0, "ci_high": 11.0, "n": 100}])], ignore_index=True)
    asym = pd.DataFrame({"model": list("ABCD"), "estimate": [0.5, 1.6, 0.9, 1.1], "ci_low": [0.4, 1.2, 0.7, 0.95],
                         "ci_high": [0.7, 2.0, 1.1, 1.3]})
    return mom, asym


def test_skew_counts_only_intervals_that_exclude_zero_and_names_the_most_asymmetric():
    text = render("distributions", "skew", s=results.shape(*_moments()))
    assert text.startswith("1 of 4 score distributions are negatively skewed with a CI excluding 0 and 1 "
                           "positively skewed.")
    assert "The most asymmetric is A (published, skewness -1.80, 95% CI -2.40 to -1.10)" in text
    assert "below 1 (a longer low tail) for 1 and above 1 for 1 of them" in text


def test_the_most_asymmetric_is_chosen_by_absolute_skewness():
    mom, asym = _moments()
    mom.loc[mom["model"] == "D", "estimate"] = 2.2
    assert "The most asymmetric is D (compute, skewness 2.20" in render("distributions", "skew",
                                                                        s=results.shape(mom, asym))


def _composition() -> pd.DataFrame:
    rows = []
    for model, top, bottom in (("A", ("dictionary word", 0.8, 2.0), ("name", 0.6, 3.0)),
                               ("B", ("name", 0.55, 2.75), ("phrase", 0.9, 1.8))):
        for tail, (value, share, lift) in (("top", top), ("bottom", bottom)):
            rows.append({"model": model, "tail": tail, "n": 20, "value": value, "share": share, "lift": lift})
            rows.append({"model": model, "tail": tail, "n": 20, "value": "other", "share": 1 - share - 0.05,
                         "lift": 0.4})
    return pd.DataFrame(rows)


def test_composition_names_the_dominant_kind_of_each_tail_per_model():
    text = render("distributions", "tails", s=results.tail_kinds("published", _composition()))
    lines = [line for line in text.splitlines() if line]
    assert lines[0] == "*published*:"
    assert lines[1] == ("* **A**: the top 20 are mostly *dictionary word* (80%, 2.0× its share overall); the bottom "
                        "20 mostly *name* (60%, 3.0×).")
    assert lines[2].startswith("* **B**: the top 20 are mostly *name* (55%") and "*phrase* (90%, 1.8×)" in lines[2]
    assert len(lines) == 3


def test_word_share_reports_only_the_is_word_feature_with_signed_differences():
    feats = pd.DataFrame([
        {"feature": "is_word", "model": "A", "top_mean": 0.9, "bottom_mean": 0.3, "difference": 0.6, "ci_low": 0.4,
         "ci_high": 0.8, "rank_biserial": 0.5},
        {"feature": "is_word", "model": "B", "top_mean": 0.2, "bottom_mean": 0.5, "difference": -0.3,
         "ci_low": -0.55, "ci_high": -0.05, "rank_biserial": -0.2},
        {"feature": "is_special", "model": "A", "top_mean": 0.0, "bottom_mean": 0.7, "difference": -0.7,
         "ci_low": -0.9, "ci_high": -0.5, "rank_biserial": -0.9}])
    text = render("distributions", "word_share", s=results.word_share(feats))
    assert text == ("Share of whole words, top vs bottom tail: A 90% vs 30% (difference +60%, 95% CI +40% to +80%); "
                    "B 20% vs 50% (difference -30%, 95% CI -55% to -5%).")


def test_without_a_compute_run_the_features_are_explained_not_shown():
    text = render("distributions", "word_share", s=results.word_share(pd.DataFrame()))
    assert text == "Token features need compute mode (published scores are for EloEverything items)."


def test_the_table_headings_and_the_shared_vocabulary():
    s = results.answer_set("compute", _run({"tiny": 7}, {"tiny": "RM score"}))
    assert render("distributions", "raw_heading", s=s, model="tiny") == "**tiny** (compute, raw)"
    assert render("distributions", "shared_heading", model="tiny") == "**tiny** (shared vocabulary)"
    n = results.shared_vocabulary_size(pd.DataFrame({"a": range(1234)}))
    assert render("distributions", "shared_vocabulary", n=n) == "Shared vocabulary: 1,234 token texts."
