"""The "Value cards" page's results: built from planted card rows, the summary counts what the rows say, and the
type round-trips and is found by its chapter's name."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.analysis.results import by_chapter
from rmbook.chapters.value_cards import results as value_cards
from rmbook.results import read_results, write_results

AMONG = "among them"


def _rows(source, sides, taus, beyond, elo=None) -> pd.DataFrame:
    elo = elo or [AMONG] * len(sides)
    return pd.DataFrame([{"label": f"{source[0]}{i}", "model": f"m{i}", "source": source, "reward_kind": "RM score",
                          "gap_negative": -10.0 * i, "side_negative": neg, "gap_positive": 1.0 * i,
                          "side_positive": pos, "love": 1.0, "freedom": 2.0, "n_foundations_beyond": b,
                          "nearest": "R-Gem-2B", "nearest_tau": t, "elo_rho": 0.1 * i, "elo_side": e,
                          "identity_excess": -float(i), "identity_side": e}
                         for i, ((neg, pos), t, b, e) in enumerate(zip(sides, taus, beyond, elo))])


class _Card:
    kind, prompts = "standard", ["best_ever_one", "worst_ever_one"]
    base_rate = None  # the paper RMs' base rate of "beyond" (a card's; tested in test_noise.py)


PAPER = _rows("released scores", [(AMONG, AMONG), ("agency side of every paper RM", AMONG), (AMONG, AMONG)],
              [0.5, 0.8, 0.45], [1, 3, 0])


NONE = value_cards.Trained(asked=[], pairs=[], missing={})


def test_the_summary_counts_what_the_computed_rows_say():
    computed = _rows("computed", [(AMONG, AMONG), (AMONG, "communion side of every paper RM"), (AMONG, AMONG)],
                     [0.2, 0.6, 0.3], [2, 7, 5], elo=[AMONG, AMONG, "above every paper RM"])
    s = value_cards.computed_summary(computed, lowest_paper_tau=0.41)
    r = value_cards.chapter_results("compute", [_Card()], PAPER, computed, s, NONE)
    assert r.computed == s
    assert r.n_paper_beyond_gap == 1 and len(r.rows) == 6
    assert (s.n_models, s.n_beyond_gap, s.beyond_gap) == (3, 1, ["c1"])
    assert (s.min_foundations_beyond, s.max_foundations_beyond) == (2, 7)
    assert (s.max_tau, s.max_tau_model, s.max_tau_reference) == (0.6, "c1", "R-Gem-2B")
    assert s.n_below_paper_tau == 2  # 0.2 and 0.3 are below 0.41; 0.6 is not
    assert (s.n_elo, s.elo_beyond) == (3, {"c2": "above every paper RM"})
    assert value_cards.rows_frame(PAPER, computed)["label"].tolist() == ["r0", "r1", "r2", "c0", "c1", "c2"]


def test_a_published_run_has_no_computed_summary_and_round_trips(tmp_path):
    assert value_cards.computed_summary(PAPER.iloc[:0], lowest_paper_tau=0.41) is None
    r = value_cards.chapter_results("published", [_Card()], PAPER, PAPER.iloc[:0], None, NONE)
    assert r.computed is None and r.mode == "published"
    write_results(r, tmp_path)
    assert read_results("value_cards", tmp_path, value_cards.ValueCardsResults) == r
    assert by_chapter.result_type("value_cards") is value_cards.ValueCardsResults


def test_quick_cards_have_no_foundations_or_agreement_to_summarise():
    quick = PAPER.assign(source="computed", n_foundations_beyond=None, nearest=None, nearest_tau=None, elo_rho=None,
                         elo_side=None, identity_excess=None, identity_side=None)
    s = value_cards.computed_summary(quick, lowest_paper_tau=None)
    assert s.min_foundations_beyond is None and s.max_tau is None and s.n_below_paper_tau == 0
    assert s.n_elo == 0 and s.elo_beyond == {}


def test_a_base_to_rm_diff_counts_the_numbers_that_moved_beyond_their_noise():
    rows = [("agency − communion gap, negative prompts", -17.0, -40.0, 10.0, True),
            ("agency − communion gap, positive prompts", -30.0, -28.0, 5.0, False),
            ("rank of 'love' under greatest_ever_one", 3.0, 1.0, None, None),
            ("median rank of care, positive prompts", 90.0, 60.0, 12.0, True)]
    diffs = pd.DataFrame([{"base": "LM", "rm": "local:ft", "measure": m, "a": a, "b": b, "change": b - a,
                           "noise": n, "outside_noise": o} for m, a, b, n, o in rows])
    t = value_cards.trained(["local:ft", "local:gone"], diffs, {"local:gone": "no trained RM"})
    (p,) = t.pairs
    assert (p.base, p.rm, p.n_judged, p.n_outside) == ("LM", "local:ft", 3, 2)
    assert p.outside == ["agency − communion gap, negative prompts", "median rank of care, positive prompts"]
    assert (p.gap_negative_base, p.gap_negative_rm, p.gap_positive_rm) == (-17.0, -40.0, -28.0)
    assert t.missing == {"local:gone": "no trained RM"} and t.asked == ["local:ft", "local:gone"]
