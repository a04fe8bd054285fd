"""rmlib.report.prose.distributions: the run line counts models, answers and implicit rewards; the skew sentence
counts only CIs that exclude 0 and names the most asymmetric distribution; the tails name the dominant kind."""
from __future__ import annotations

import pandas as pd

from rmlib.report.prose import distributions as pd_


def _run(sizes: dict[str, int], kinds: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "reward_kind": kinds[m], "reward": float(i)}
                         for m, n in sizes.items() for i in range(n)])


def test_run_line_with_equal_sizes_and_only_reward_models():
    df = _run({"a": 4, "b": 4, "c": 4}, {m: "RM score (published)" for m in "abc"})
    assert pd_.run_markdown("published", df) == ("**published**: 3 models × 4 answers each. "
                                                 "All are reward models.")


def test_run_line_with_unequal_sizes_names_the_range_and_the_implicit_rewards():
    df = _run({"lm1": 3, "lm2": 1200, "rm": 5}, {"lm1": "LM log-prob", "lm2": "LM log-prob", "rm": "RM score"})
    text = pd_.run_markdown("compute", df)
    assert "3 models × 3 to 1,200 answers each" in text
    assert "2 are LMs whose reward is the log-probability" in text and "**implicit**" in text
    assert "All are reward models" not in text


def test_a_single_model_run():
    text = pd_.run_markdown("compute", _run({"tiny": 7}, {"tiny": "RM score"}))
    assert text.startswith("**compute**: 1 model") and "× 7 answers each. All are reward models." in text


def _moments() -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [("A", "published", -1.8, -2.4, -1.1),   # negative, CI excludes 0: the most asymmetric
            ("B", "published", 0.6, 0.2, 1.0),      # positive, CI excludes 0
            ("C", "compute", -0.3, -0.9, 0.4),      # CI includes 0: neither count
            ("D", "compute", 1.2, -0.1, 2.5)]       # large but its CI includes 0
    mom = pd.DataFrame([{"model": m, "run": r, "moment": "skewness", "estimate": e, "ci_low": lo, "ci_high": hi}
                        for m, r, e, lo, hi in rows])
    # a kurtosis row far larger than any skewness must not be named as the most asymmetric
    mom = pd.concat([mom, pd.DataFrame([{"model": "B", "run": "published", "moment": "kurtosis", "estimate": 9.0,
                                         "ci_low": 7.0, "ci_high": 11.0}])], ignore_index=True)
    asym = pd.DataFrame({"model": list("ABCD"), "estimate": [0.5, 1.6, 0.9, 1.1], "ci_low": [0.4, 1.2, 0.7, 0.95],
                         "ci_high": [0.7, 2.0, 1.1, 1.3]})
    return mom, asym


def test_skew_counts_only_intervals_that_exclude_zero_and_names_the_most_asymmetric():
    text = pd_.skew_markdown(*_moments())
    assert text.startswith("1 of 4 score distributions are negatively skewed with a CI excluding 0 and 1 "
                           "positively skewed.")
    assert "The most asymmetric is A (published, skewness -1.80, 95% CI -2.40 to -1.10)" in text
    assert "below 1 (a longer low tail) for 1 and above 1 for 1 of them" in text


def test_the_most_asymmetric_is_chosen_by_absolute_skewness():
    mom, asym = _moments()
    mom.loc[mom["model"] == "D", "estimate"] = 2.2
    assert "The most asymmetric is D (compute, skewness 2.20" in pd_.skew_markdown(mom, asym)


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
    text = pd_.composition_markdown("published", _composition())
    lines = text.splitlines()
    assert lines[0] == "*published*:"
    assert lines[1] == ("* **A**: the top 20 are mostly *dictionary word* (80%, 2.0× its share overall); the bottom "
                        "20 mostly *name* (60%, 3.0×).")
    assert lines[2].startswith("* **B**: the top 20 are mostly *name* (55%") and "*phrase* (90%, 1.8×)" in lines[2]
    assert len(lines) == 3


def test_word_share_reports_only_the_is_word_feature_with_signed_differences():
    feats = pd.DataFrame([
        {"feature": "is_word", "model": "A", "top_mean": 0.9, "bottom_mean": 0.3, "difference": 0.6, "ci_low": 0.4,
         "ci_high": 0.8},
        {"feature": "is_word", "model": "B", "top_mean": 0.2, "bottom_mean": 0.5, "difference": -0.3,
         "ci_low": -0.55, "ci_high": -0.05},
        {"feature": "is_special", "model": "A", "top_mean": 0.0, "bottom_mean": 0.7, "difference": -0.7,
         "ci_low": -0.9, "ci_high": -0.5}])
    text = pd_.word_share_markdown(feats)
    assert text == ("Share of whole words, top vs bottom tail: A 90% vs 30% (difference +60%, 95% CI +40% to +80%); "
                    "B 20% vs 50% (difference -30%, 95% CI -55% to -5%).")
