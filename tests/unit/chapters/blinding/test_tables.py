"""rmbook.chapters.blinding.tables: the chapter's widest table in a few named columns (#43 item 3), every number a
reader needs still there."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.blinding.tables import answering_view

NAN = float("nan")


def test_blindings_answering_table_pairs_each_measure_with_its_spread():
    raw = pd.DataFrame([
        {"model": "smollm2", "reward_kind": "LM log-prob", "n_prompts": 100, "yes_no_mass": 0.483,
         "yes_no_mass_min": 0.279, "blinded_p_yes": 0.569, "blinded_template_sd": 0.042, "decisiveness": 0.061,
         "ignore_shift": 0.013, "ignore_abs_shift": 0.028, "agree_informed": 1.0, "replica_p_informed": 0.561,
         "agree_counterfactual": 0.0, "replica_p_counterfactual": 0.371},
        {"model": "an RM", "reward_kind": "RM", "n_prompts": 1200, "yes_no_mass": NAN, "yes_no_mass_min": NAN}])
    view = answering_view(raw)
    assert len(view.columns) == 9 < len(raw.columns)
    lm, rm = view.iloc[0], view.iloc[1]
    assert lm["P(yes) + P(no) (min)"] == "0.483 (0.279)"
    assert lm["blinded P(yes) ± SD over templates"] == "0.569 ± 0.042"
    assert lm["shift when told to ignore (mean |shift|)"] == "0.013 (0.028)"
    assert lm["agrees with the replica, counterfactual (its P)"] == "0 (0.371)"
    assert rm["prompts"] == "1,200" and set(rm.iloc[3:]) == {"—"}  # an RM has no yes/no mass, and no replica here
