"""rmbook.chapters.finetuning.durability: family orders, planted flips and the published checkpoint
gaps."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.finetuning import durability as du


def _planted(gaps: dict[str, list[float]]) -> pd.DataFrame:
    """One row per checkpoint x family with the given gaps."""
    return pd.DataFrame([{"checkpoint": (i + 1) * 1000, "family": f, "gap": g}
                         for f, vals in gaps.items() for i, g in enumerate(vals)])


def test_a_stable_order_has_no_flips_and_w_of_one():
    df = _planted({"Llama": [-200, -210, -190], "Gemma": [-50, -40, -60], "Qwen": [150, 160, 170]})
    st = du.order_stability(df, "checkpoint")
    assert st["kendall_w"] == pytest.approx(1.0) and st["n_pair_flips"] == 0 and st["n_pairs"] == 3
    assert st["reference_order"] == "Llama < Gemma < Qwen" and st["n_modal"] == 3 and st["n_pairs_inconsistent"] == 0
    ok = du.claimed_order(df, ["checkpoint"], lower="Llama", higher="Gemma")
    assert ok["holds"].all() and len(ok) == 3


def test_a_planted_flip_is_found_where_it_happens():
    # Llama and Gemma swap at the third checkpoint (as in the authors' UltraFeedback 100k run); Qwen stays last
    df = _planted({"Llama": [-230, -160, -60, -55], "Gemma": [-5, -70, -110, -115], "Qwen": [220, 200, 160, 170]})
    st = du.order_stability(df, "checkpoint", reference="first")
    assert st["n_pair_flips"] == 1 and st["n_pairs_inconsistent"] == 1
    flip = next(f for f in st["pair_flips"] if f["n_flipped"])
    assert set(flip["pair"].split(", ")) == {"Llama", "Gemma"} and flip["flipped_blocks"] == ["3000", "4000"]
    assert st["orders"]["4000"] == "Gemma < Llama < Qwen" and 0 < st["kendall_w"] < 1
    ok = du.claimed_order(df, ["checkpoint"], lower="Llama", higher="Gemma")
    assert ok["holds"].tolist() == [True, True, False, False]


def test_family_orders_and_ties():
    df = pd.DataFrame({"block": ["a", "a", "b", "b"], "family": ["X", "Y", "X", "Y"], "gap": [1.0, 2.0, 3.0, 3.0]})
    orders = du.family_orders(df, ["block"]).set_index("block")
    assert orders.loc["a", "order"] == "X < Y" and orders.loc["b", "order"] == "X = Y"
    assert orders.loc["b", "rank_X"] == orders.loc["b", "rank_Y"] == 1.5
    with pytest.raises(ValueError, match="aggregate"):
        du.family_orders(pd.concat([df, df]), ["block"])
    with pytest.raises(ValueError, match="fewer than 2 families"):
        du.order_stability(df[df["family"] == "X"], "block")


def test_seeds_that_disagree_have_no_majority():
    df = pd.DataFrame({"seed": [0, 0, 1, 1], "family": ["A", "B", "A", "B"], "gap": [0.1, 0.2, 0.3, 0.2]})
    st = du.order_stability(df, "seed", reference="majority")
    assert st["n_modal"] == 1 and st["n_pairs_inconsistent"] == 1 and st["kendall_w"] == pytest.approx(0.0)


def test_checkpoint_gaps_on_the_published_files():
    from rmlib.data import DataError, load_checkpoint_ranks

    try:
        ranks = load_checkpoint_ranks()
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")
    gaps = du.checkpoint_gaps(ranks)
    assert len(gaps) == len(ranks) // 2 and gaps["gap"].notna().all()
    uf100 = gaps[gaps["file"] == "rank_results_uf_100"]
    st = du.order_stability(uf100.rename(columns={"base_family": "family"}), "checkpoint")
    assert st["reference_order"] == "Llama < Gemma < Qwen" and st["n_pair_flips"] == 1  # Llama/Gemma swap later


def test_seed_and_step_orders_skip_prompts_without_replicates():
    gaps = pd.DataFrame({"prompt_label": ["pos"] * 4 + ["neg"] * 2, "seed": [0, 0, 1, 1, 0, 0],
                         "step": [4, 4, 8, 8, 4, 4], "base_model": ["a", "b"] * 3,
                         "gap": [0.1, 0.2, 0.3, 0.1, 0.0, 1.0]})
    seeds = du.seed_orders(gaps)
    assert list(seeds["prompt_label"]) == ["pos"] and seeds.iloc[0]["n_seeds"] == 2
    assert seeds.iloc[0]["pairs_inconsistent"] == 1 and seeds.iloc[0]["pairs"] == 1    # the seeds disagree on a vs b
    steps = du.step_orders(gaps.rename(columns={"seed": "s"}))
    assert [r["prompt_label"] for r in steps] == ["pos"] and steps[0]["n_pair_flips"] == 1


def test_published_run_orders_and_durability_counts():
    ck = pd.DataFrame({"file": ["f1"] * 4 + ["f2"] * 2, "data_source": ["uf"] * 6, "quantity_k": [27] * 4 + [54] * 2,
                       "method": ["BT"] * 6, "checkpoint": [1, 1, 2, 2, 1, 1],
                       "base_family": ["Llama", "Gemma"] * 3, "gap": [-1.0, 1.0, 2.0, 1.0, -1.0, 0.5]})
    runs = du.published_run_orders(ck)
    assert list(runs["run"]) == ["uf 27k BT", "uf 54k BT"] and list(runs["checkpoints"]) == [2, 1]
    assert list(runs["pair_flips"]) == [1, 0] and list(runs["final_claimed"]) == [False, True]
    d = du.published_durability(runs, {"orders": {}})
    assert (d["final_claimed_holds"], d["final_n"], d["checkpoints_claimed_holds"], d["checkpoints_n"],
            d["runs_with_flip"], d["n_runs"]) == (1, 2, 1, 2, 1, 1)


def _ok(holds: list[bool]) -> pd.DataFrame:
    """A claimed-order table (:func:`claimed_order`) for checkpoints 1000, 2000, ..."""
    return pd.DataFrame({"checkpoint": [(i + 1) * 1000 for i in range(len(holds))], "holds": holds})


def test_a_run_fails_on_a_persistent_flip_or_a_flip_at_its_final_checkpoint():
    persistent = du.judge_run(_ok([True, True, False, False, False]))
    assert not persistent["holds"] and persistent["persistent"]
    assert persistent["flip_step"] == persistent["flipped_from"] == 3000 and persistent["final_step"] == 5000
    at_end = du.judge_run(_ok([True, True, True, False]))
    assert not at_end["holds"] and not at_end["persistent"] and at_end["flipped_from"] == 4000
    reverted = du.judge_run(_ok([True, False, True, True]))   # a transient flip is reported, but the run holds
    assert reverted["holds"] and reverted["flip_step"] == 2000 and reverted["flipped_from"] is None
    back_and_forth = du.judge_run(_ok([True, False, True, False, False]))
    assert back_and_forth["flip_step"] == 2000 and back_and_forth["flipped_from"] == 4000
    assert not back_and_forth["holds"] and back_and_forth["persistent"]
    assert du.judge_run(_ok([True]))["holds"] and not du.judge_run(_ok([False]))["persistent"]


def _published(flip_at_largest_only: bool) -> pd.DataFrame:
    """Three planted runs (27k, 54k, 100k pairs, four checkpoints each, Llama below Gemma by 10 points); the 100k
    run's order flips at its final checkpoint, or (``False``) nowhere."""
    rows = []
    for qty in (27, 54, 100):
        for c in range(1, 5):
            flip = flip_at_largest_only and qty == 100 and c == 4
            for fam, gap in (("Llama", 10.0 if flip else -10.0), ("Gemma", 0.0)):
                rows.append({"file": f"f{qty}", "data_source": "uf", "quantity_k": qty, "method": "BT",
                             "checkpoint": c * 1000, "base_family": fam, "gap": gap})
    return pd.DataFrame(rows)


def test_a_flip_only_at_the_largest_size_fails_that_run_though_the_pooled_count_looks_fine():
    runs = du.published_run_orders(_published(True))
    d = du.published_durability(runs, {"orders": {}})
    assert d["checkpoints_claimed_holds"] == 11 and d["checkpoints_n"] == 12      # pooled: 92% "holds"
    assert (d["n_runs_judged"], d["n_runs_held"], d["n_runs_failed"]) == (3, 2, 1)
    assert d["failed_runs"] == ["uf 100k BT"] and d["largest_run"] == "uf 100k BT" and d["largest_run_holds"] is False
    big = next(r for r in d["runs_judged"] if r["quantity_k"] == 100)
    assert big["flip_step"] == 4000 and big["persistent"] is False and big["holds"] is False
    assert d["final_n_failed"] == 1 and d["final_largest_run_holds"] is False
    assert [r["holds"] for r in d["final_runs"]] == [True, True, False]
    clean = du.published_durability(du.published_run_orders(_published(False)), {"orders": {}})
    assert clean["n_runs_failed"] == 0 and clean["largest_run_holds"] is True and clean["final_largest_run_holds"]
    assert all(r["flip_step"] is None for r in clean["runs_judged"])


def test_the_published_uf100k_run_flips_at_step_8000_and_stays_flipped():
    from rmlib.data import DataError, load_checkpoint_ranks

    try:
        ranks = load_checkpoint_ranks()
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")
    d = du.published_durability(du.published_run_orders(du.checkpoint_gaps(ranks)), {"orders": {}})
    uf100 = next(r for r in d["runs_judged"] if r["run"] == "ultrafeedback 100k BT")
    assert uf100 == {**uf100, "holds": False, "flip_step": 8000, "flipped_from": 8000, "persistent": True}
    assert d["failed_runs"] == ["ultrafeedback 100k BT"] and d["largest_run_holds"] is False
    assert (d["n_runs_judged"], d["final_n"], d["final_n_failed"]) == (4, 5, 1)


def test_seeds_whose_orders_all_differ_have_no_modal_order():
    three = pd.DataFrame({"prompt_label": ["pos"] * 9, "seed": np.repeat([0, 1, 2], 3), "base_model": list("abc") * 3,
                          "gap": [1, 2, 3, 2, 1, 3, 3, 2, 1]})
    row = du.seed_orders(three).iloc[0]
    assert not row["modal_order_exists"] and row["modal_order"] is None and pd.isna(row["n_seeds_modal_order"])
    assert row["n_distinct_orders"] == 3
    two_agree = three.assign(gap=[1, 2, 3, 1, 2, 3, 3, 2, 1])
    row = du.seed_orders(two_agree).iloc[0]
    assert row["modal_order_exists"] and row["n_seeds_modal_order"] == 2 and row["modal_order"] == "a < b < c"


def test_a_tie_is_neither_held_nor_failed_as_the_order_rule_has_it():
    """#63 item 6: a tied run counted as failed (``difference < 0``), where the claims' order rule calls a tie
    "not established". A run tied at its final checkpoint is one unclear unit: neither held nor failed."""
    df = _planted({"Llama": [-10.0, 0.0], "Gemma": [0.0, 0.0]})
    ok = du.claimed_order(df, ["checkpoint"], lower="Llama", higher="Gemma")
    assert ok["holds"].tolist() == [True, False] and ok["tied"].tolist() == [False, True]
    run = du.judge_run(ok)
    assert not run["holds"] and run["tied"] and run["flip_step"] is None and run["flipped_from"] is None
    rows = []
    for qty, final in ((27, -10.0), (100, 0.0)):
        for c in (1, 2):
            for fam, gap in (("Llama", final if c == 2 else -10.0), ("Gemma", 0.0)):
                rows.append({"file": f"f{qty}", "data_source": "uf", "quantity_k": qty, "method": "BT",
                             "checkpoint": c * 1000, "base_family": fam, "gap": gap})
    d = du.published_durability(du.published_run_orders(pd.DataFrame(rows)), {"orders": {}})
    assert (d["n_runs_held"], d["n_runs_failed"], d["n_runs_tied"]) == (1, 0, 1) and d["failed_runs"] == []
    assert (d["final_n_failed"], d["final_n_tied"]) == (0, 1)


def test_a_tied_largest_run_is_neither_held_nor_failed():
    """#63 item 6: ties are 'not established' everywhere; the largest run tied at its final checkpoint was said to
    fail (largest_run_holds False, and the page's "does not hold")."""
    rows = [{"file": f"f{qty}", "data_source": "uf", "quantity_k": qty, "method": "BT", "checkpoint": c * 1000,
             "base_family": fam, "gap": (0.0 if (qty == 100 and c == 2) else -10.0) if fam == "Llama" else 0.0}
            for qty in (27, 100) for c in (1, 2) for fam in ("Llama", "Gemma")]
    d = du.published_durability(du.published_run_orders(pd.DataFrame(rows)), {"orders": {}})
    assert (d["largest_run"], d["largest_run_holds"], d["largest_run_tied"]) == ("uf 100k BT", False, True)
    assert (d["final_largest_run_holds"], d["final_largest_run_tied"]) == (False, True)
    flipped = [{**r, "gap": 10.0} if (r["quantity_k"], r["checkpoint"], r["base_family"]) == (100, 2000, "Llama")
               else r for r in rows]
    d = du.published_durability(du.published_run_orders(pd.DataFrame(flipped)), {"orders": {}})
    assert (d["largest_run_holds"], d["largest_run_tied"]) == (False, False)  # a flip is a failure, not a tie
