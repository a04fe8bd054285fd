"""rmbook.chapters.value_profiles.tables: the value chapters' permutation and post-hoc tables in a few named columns (#43 item
3: 14 and 17 raw columns ran past the text column), every number a reader needs still there."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.value_profiles.tables import mixed_view, permutation_view, posthoc_view


def test_the_permutation_table_names_the_families_and_keeps_the_tests():
    raw = pd.DataFrame([{"foundation": "care", "valence": "virtue", "group_a": "Gemma", "group_b": "Llama", "n_a": 4,
                         "n_b": 6, "mean_a": 98.44, "mean_b": 104.9, "difference": -6.44, "t": -1.0, "p": 0.48,
                         "hedges_g": -0.44, "reject": False, "p_fdr": 0.5}])
    view = permutation_view(raw)
    assert list(view.columns) == ["foundation", "valence", "models", "mean median rank", "difference", "Hedges' g",
                                  "p", "p (FDR)"]
    row = view.iloc[0]
    assert row["models"] == "4 Gemma vs 6 Llama" and row["mean median rank"] == "98.4 vs 104.9"
    assert (row["p"], row["p (FDR)"], row["Hedges' g"]) == (0.48, 0.5, -0.44)


def test_the_posthoc_table_puts_each_contrast_and_its_interval_in_one_cell():
    raw = pd.DataFrame([{"category": "Agency", "valence": "positive", "level_a": "Gemma", "level_b": "Llama",
                         "n_a": 4, "n_b": 6, "mean_a": 1.0, "mean_b": 2.0, "difference": 6.41, "ci_low": -3.6,
                         "ci_high": 16.4, "t": 1.0, "df": 8.0, "p": 0.3, "hedges_g": 0.9, "reject": False,
                         "p_adj": 0.34}])
    view = posthoc_view(raw)
    assert len(view.columns) == 6 and view.iloc[0]["contrast"] == "Gemma vs Llama (n 4 vs 6)"
    assert view.iloc[0]["difference [95% CI]"] == "6.4 [-3.6, 16.4]" and view.iloc[0]["p (adjusted)"] == 0.34
    with pytest.raises(ValueError):
        posthoc_view(raw.drop(columns="p_adj"))


def test_the_mixed_model_table_names_each_term_by_its_levels():
    raw = pd.DataFrame([{"term": "Intercept", "estimate": 101.24, "se": 3.1, "z": 32.7, "p": 0.0, "ci_low": 95.2,
                         "ci_high": 107.3},
                        {"term": "family[T.Llama]:category[T.Communion]:valence[T.positive]", "estimate": -6.46,
                         "se": 2.0, "z": -3.2, "p": 0.0012, "ci_low": -10.4, "ci_high": -2.5}])
    view = mixed_view(raw)
    assert list(view.columns) == ["term", "estimate [95% CI]", "standard error", "z", "p"]
    assert view["term"].tolist() == ["Intercept", "Llama × Communion × positive"]
    assert view.iloc[1]["estimate [95% CI]"] == "-6.5 [-10.4, -2.5]" and view.iloc[1]["p"] == 0.0012
    with pytest.raises(ValueError):
        mixed_view(raw.drop(columns="ci_low"))
