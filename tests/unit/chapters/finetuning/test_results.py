"""rmbook.chapters.finetuning.results: the chapter's results built section by section from small planted frames (the
durability counts from the chapter's own functions on planted checkpoints), stored and read back."""
from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from rmbook.chapters.finetuning import durability
from rmbook.chapters.finetuning import results
from rmbook.results import read_results, write_results


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
    final = metrics.assign(n_test=16, model=metrics["run"] + "@" + metrics["step"].astype(str))
    steps = [{"prompt_label": "positive", "n_blocks": 2, "kendall_w": 1.0, "n_pair_flips": 0, "n_pairs": 1}]
    base_anova = anova.assign(F=3.0, df="1, 2", eta_sq=0.5) if n_seeds > 1 else pd.DataFrame()
    imprint = pd.DataFrame({"base_model": ["a", "b"], "rm_gap": [0.1, 0.3], "same_sign_as_base": [True, False]})
    return (summary, results.training(2, list(range(n_seeds)), ["a", "b"], True, summary.assign(
                steps=8, first_loss=0.7, last_loss=0.3, share_truncated=0.0), 8, 32, 96),
            metrics, results.evaluation(final, ["RM score"]), imprint,
            results.imprint(imprint.assign(prompt_label="positive"), base_anova,
                            pd.Series({"positive": 0.2}), "Agency", "Communion"),
            base_anova, pd.DataFrame(), None, pd.DataFrame({"n_pairs": [32], "gap": [0.1]}),
            results.trajectory(pd.DataFrame({"gap": [0.1, -0.2]}), pd.DataFrame({"n_pairs": [32]}),
                               pd.Series(dtype=float), pd.Series({"Gemma": 1.0})),
            results.accuracy_variance(final, float("nan"), float("nan")), pd.DataFrame({"x": [1, 2, 3]}),
            results.durability(results.published(pub, runs), durability.seed_orders(gaps), steps))


def test_the_results_of_planted_frames_are_typed_and_read_back(tmp_path):
    res = results.chapter_results(*_pieces())
    pub = res.durability.published
    assert (pub.n_runs_judged, pub.n_runs_failed, pub.largest_run_holds) == (2, 1, False)
    assert pub.largest_run == "ultrafeedback 100k BT"
    flipped = next(r for r in pub.runs_judged if not r.holds)
    assert (flipped.flip_step, flipped.persistent) == (20, True)
    assert res.metrics[3].accuracy is None and res.metrics[0].step == 4  # a NaN accuracy is stored as missing
    assert res.accuracy_variance.rho is None and res.n_published_final == 3
    assert res.accuracy_variance.best_accuracy_model == "r1@8" and not res.accuracy_variance.same_checkpoint
    assert (res.evaluation.accuracy_min, res.evaluation.accuracy_max, res.evaluation.n_test_max) == (0.5, 0.8, 16)
    assert res.training.same_data and res.training.steps == 8 and res.training.first_loss == pytest.approx(0.7)
    assert res.imprint_found.n_same_sign == 1 and res.imprint_found.anova[0].df == "1, 2"
    assert res.trajectory.moved_mean == pytest.approx(0.15) and not res.trajectory.quantity.ran
    assert [(c.run, c.first_order, c.final_order) for c in pub.order_changes] == [
        ("ultrafeedback 100k BT", "Llama < Gemma", "Gemma < Llama")]
    assert res.durability.ours_n_checkpoints == 2 and res.durability.ours_checkpoints[0].n_pair_flips == 0
    assert (res.base_effect.n_prompts, res.base_effect.n_prompts_significant) == (2, 1)
    ours = res.durability.ours
    assert ours.prompt_label == "positive" and ours.n_seeds == 2 and ours.modal_order_exists
    assert not ours.all_orders_differ and (ours.pairs_inconsistent, ours.pairs) == (0, 1)
    write_results(res, tmp_path)
    assert read_results("finetuning", tmp_path, results.FinetuningResults) == res


def test_one_seed_has_no_base_effect_nor_across_seed_order_and_a_bad_count_is_refused():
    res = results.chapter_results(*_pieces(n_seeds=1))
    assert res.base_effect is None and res.durability.ours is None and res.durability.ours_by_prompt == []
    assert res.imprint_found.anova == [] and res.ablation is None
    with pytest.raises(ValidationError):
        results.FinetuningResults(**{**res.model_dump(), "n_published_final": "many"})
