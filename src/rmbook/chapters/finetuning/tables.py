"""The chapter's widest table folded into a few named columns, so that it fits the page
(:mod:`rmbook.report.compact_tables`); the analysis and the results keep every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.compact_tables import any_missing, cells, number_text, with_extra
from rmlib.stats import require_columns

__all__ = ["run_orders_view"]


def run_orders_view(runs: pd.DataFrame) -> pd.DataFrame:
    """finetuning: each published run's family order across its checkpoints
    (:func:`rmbook.chapters.finetuning.durability.published_run_orders`): the first and final order, Kendall's W with
    the pair flips, how many checkpoints hold the claimed order, and the run's verdict (where it flipped, and whether
    the flip persisted)."""
    require_columns(runs, ["run", "checkpoints", "first_order", "final_order", "kendall_w", "pair_flips", "pairs",
                           "llama_below_gemma", "n_checkpoints", "holds", "flip_step", "persistent"], "run orders")

    def verdict(holds, flip, persistent) -> str:
        if any_missing(flip):
            return "holds" if holds else "never holds"
        return f"flips at step {int(flip):,}" + (", for good" if persistent else ", then holds again")

    out = pd.DataFrame({"run": runs["run"], "checkpoints": runs["checkpoints"].map(number_text)})
    out["order: first → final"] = cells(runs, lambda a, b: a if a == b else f"{a} → {b}", "first_order",
                                         "final_order")
    out["Kendall's W (pair flips)"] = cells(
        runs, lambda w, f, n: with_extra(w, f"{int(f)} of {int(n)}" if not any_missing(f, n) else None, number_text, str),
        "kendall_w", "pair_flips", "pairs")
    out["claimed order holds at"] = cells(runs, lambda k, n: f"{int(k)} of {int(n)}", "llama_below_gemma",
                                           "n_checkpoints")
    out["verdict"] = cells(runs, verdict, "holds", "flip_step", "persistent")
    return out
