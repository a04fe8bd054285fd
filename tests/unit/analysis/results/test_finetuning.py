"""rmlib.analysis.results.finetuning: the chapter's results built from small planted frames (the durability counts
from the chapter's own functions on planted checkpoints), stored and read back."""
from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from rmlib.analysis import durability
from rmlib.analysis.results import finetuning as results
from rmlib.storage import read_results, write_results


def _checkpoints() -> pd.DataFrame:
    """Two published runs of Llama vs Gemma: 27k keeps Llama below, 100k flips at step 20 and stays flipped."""
    rows = []
    for qty, gaps in ((27, [(-2, 1), (-3, 1), (-2, 2)]), (100, [(-2, 1), (2, 1), (3, 1)])):
        for i, (llama, gemma) in enumerate(gaps):
            for fam, gap in (("Llama", llama), ("Gemma", gemma)):
                rows.append({"file": f"uf_{qty}k", "data_source": "ultrafeedback", "quantity_k": qty, "method": "BT",
                             "checkpoint": 10 * (i + 1), "base_family": fam, "gap": gap, "final": i == 2})
    return pd.DataFrame(rows)


def _pieces(n_seeds: int = 2):
    ck = _checkpoints()
    runs = durability.published_run_orders(ck)
    sizes = durability.order_stability(ck[ck["final"]], "quantity_k", family="base_family", reference="first")
    pub = durability.published_durability(runs, sizes)
    gaps = pd.DataFrame([{"base_model": b, "seed": s, "prompt_label": p, "gap": g + s} for s in range(n_seeds)
                         for p in ("positive", "negative") for b, g in (("a", 0.1), ("b", 0.3))])
    metrics = pd.DataFrame({"run": ["r1", "r1", "r2", "r2"], "step": [4, 8, 4, 8],
                            "accuracy": [0.6, 0.8, 0.5, float("nan")], "reward_var_whitened": [0.1, 0.2, 0.3, 0.4]})
    anova = pd.DataFrame({"prompt_label": ["positive", "negative"], "factor": "base_model", "p": [0.01, 0.2]})
    summary = pd.DataFrame({"base": ["a", "b"], "run": ["r1", "r2"], "data_hash": ["h", "h"]})
    return (summary, True, metrics, pd.DataFrame({"base_model": ["a"], "rm_gap": [0.1]}),
            anova if n_seeds > 1 else pd.DataFrame(), pd.DataFrame(), pd.DataFrame({"n_pairs": [32], "gap": [0.1]}),
            ["RM score"], float("nan"), pd.DataFrame({"x": [1, 2, 3]}), pub, durability.seed_orders(gaps),
            [{"prompt_label": "positive", "n_blocks": 2, "kendall_w": 1.0}])


def test_the_results_of_planted_frames_are_typed_and_read_back(tmp_path):
    res = results.chapter_results(*_pieces())
    pub = res.durability.published
    assert (pub.n_runs_judged, pub.n_runs_failed, pub.largest_run_holds) == (2, 1, False)
    assert pub.largest_run == "ultrafeedback 100k BT"
    flipped = next(r for r in pub.runs_judged if not r.holds)
    assert (flipped.flip_step, flipped.persistent) == (20, True)
    assert res.metrics[3].accuracy is None and res.metrics[0].step == 4  # a NaN accuracy is stored as missing
    assert res.spearman_acc_var is None and res.n_published_final == 3
    assert (res.base_effect.n_prompts, res.base_effect.n_prompts_significant) == (2, 1)
    ours = res.durability.ours
    assert ours.prompt_label == "positive" and ours.n_seeds == 2 and ours.modal_order_exists
    write_results(res, tmp_path)
    assert read_results("finetuning", tmp_path, results.FinetuningResults) == res


def test_one_seed_has_no_base_effect_nor_across_seed_order_and_a_bad_count_is_refused():
    res = results.chapter_results(*_pieces(n_seeds=1))
    assert res.base_effect is None and res.durability.ours is None and res.durability.ours_by_prompt == []
    with pytest.raises(ValidationError):
        results.FinetuningResults(**{**res.model_dump(), "n_published_final": "many"})
