"""The "Value cards" page's table (rmbook.report.card.cards_table) fits the text column: eight short columns, not the
twelve that ran past it at 1280 px (#43 item 3), with nothing a reader needs left out."""
from __future__ import annotations

import pandas as pd

from rmbook.report.card import cards_table


def test_the_cards_table_has_eight_columns_and_keeps_every_number():
    rows = pd.DataFrame([
        {"label": "R-Gem-2B", "source": "released scores", "reward_kind": "RM score", "gap_negative": -12.345,
         "side_negative": "among them", "gap_positive": 3.2, "side_positive": "communion side of every paper RM",
         "love": 1.0, "freedom": 7.0, "n_foundations_beyond": 2, "nearest": "S-Lla-8B", "nearest_tau": 0.612,
         "elo_rho": 0.5, "gap_negative_low": -40.06, "gap_negative_high": 8.04, "gap_positive_low": 1.0,
         "gap_positive_high": 5.5, "n_beyond": 1, "n_numbers": 12, "null_beyond_median": 0.0, "null_beyond_max": 3,
         "indistinguishable": False},
        {"label": "smollm2", "source": "computed", "reward_kind": "LM log-prob (implicit reward)", "gap_negative": None,
         "side_negative": None, "gap_positive": 1.0, "side_positive": "among them", "love": None, "freedom": 3.0,
         "n_foundations_beyond": None, "nearest": None, "nearest_tau": None, "elo_rho": None, "gap_negative_low": None,
         "gap_negative_high": None, "gap_positive_low": -20.0, "gap_positive_high": 30.0, "n_beyond": 0,
         "n_numbers": 2, "null_beyond_median": 0.0, "null_beyond_max": 1, "indistinguishable": True}])
    table = cards_table(rows)
    assert len(table.columns) == 8
    paper, computed = table.to_dict("records")
    assert paper["gap, negative prompts"] == "-12.3 (-40.1 to +8.0), among them"  # #66: the interval over words too
    assert paper["gap, positive prompts"] == "+3.2 (+1.0 to +5.5), communion side of every paper RM"
    assert paper["gap and foundation numbers beyond the range"] == "1 of 12 (null: 0, at most 3)"
    assert computed["gap and foundation numbers beyond the range"] == ("0 of 2 (null: 0, at most 1); "
                                                                       "indistinguishable from noise")
    assert paper["rewards"] == "released scores" and computed["rewards"] == "computed: LM log-prob (implicit reward)"
    assert paper["most alike paper RM"] == "S-Lla-8B (τ 0.61)" and computed["most alike paper RM"] == "–"
    assert paper["rank of love / freedom"] == "1 / 7" and computed["gap, negative prompts"] == "–"
