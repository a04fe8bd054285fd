"""rmbook.chapters.finetuning.tables: the chapter's widest table in a few named columns (#43 item 3), every number a
reader needs still there."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.finetuning.tables import run_orders_view

NAN = float("nan")


def test_a_published_runs_order_is_one_arrow_and_its_verdict_words():
    raw = pd.DataFrame([
        {"run": "uf 100k BT", "checkpoints": 14, "first_order": "Llama < Gemma < Qwen",
         "final_order": "Gemma < Llama < Qwen", "kendall_w": 0.75, "pair_flips": 1, "pairs": 3,
         "llama_below_gemma": 7, "n_checkpoints": 14, "holds": False, "flip_step": 8000, "persistent": True},
        {"run": "sky 80k GRM", "checkpoints": 1, "first_order": "Llama < Gemma", "final_order": "Llama < Gemma",
         "kendall_w": NAN, "pair_flips": 0, "pairs": 1, "llama_below_gemma": 1, "n_checkpoints": 1, "holds": True,
         "flip_step": pd.NA, "persistent": False}])
    raw["flip_step"] = raw["flip_step"].astype("Int64")
    view = run_orders_view(raw)
    assert len(view.columns) == 6
    flipped, single = view.iloc[0], view.iloc[1]
    assert flipped["order: first → final"] == "Llama < Gemma < Qwen → Gemma < Llama < Qwen"
    assert flipped["Kendall's W (pair flips)"] == "0.75 (1 of 3)"
    assert (flipped["claimed order holds at"], flipped["verdict"]) == ("7 of 14", "flips at step 8,000, for good")
    assert (single["order: first → final"], single["Kendall's W (pair flips)"]) == ("Llama < Gemma", "—")
    assert single["verdict"] == "holds"
