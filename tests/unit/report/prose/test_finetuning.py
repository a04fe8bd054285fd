"""rmlib.report.prose.finetuning: the fine-tuning chapter's sentences follow the numbers they are given."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib.report.prose import finetuning as pf


def test_training_and_evaluation_sentences():
    main = pd.DataFrame({"steps": [8, 8], "first_loss": [0.8, 0.6], "last_loss": [0.2, 0.4], "share_truncated": [0, 0.5]})
    t = pf.training_markdown(3, 1, 2, True, main, 8, 32, 96)
    assert "**the same** data" in t and "fell from 0.700" in t and "to 0.300" in t and "25% of the pairs" in t
    assert "**different** data" in pf.training_markdown(3, 1, 2, False, main, 8, 32, 96)
    final = pd.DataFrame({"n_test": [16, 20], "accuracy": [0.5, 0.75]})
    assert "from 0.50 to 0.75 (chance is 0.50) on 16–20 held-out" in pf.evaluation_markdown(final, ["RM score"])


def test_imprint_and_ablation_sentences_follow_the_anova():
    agg = pd.DataFrame({"same_sign_as_base": [True, False, True]})
    spread = pd.Series({"negative": 0.1, "positive": 0.2})
    none = pf.imprint_markdown(agg, pd.DataFrame(), spread, "Agency", "Communion")
    assert "In 2 of 3 (base, prompt) cells" in none and "0.200 under the positive prompt" in none
    assert "With one seed per base" in none
    anova = pd.DataFrame({"prompt_label": ["positive"], "F": [5.0], "df": ["1, 2"], "p": [0.04], "eta_sq": [0.7]})
    assert "F(1, 2) = 5.00, p = 0.04, η² = 0.70" in pf.imprint_markdown(agg, anova, spread, "Agency", "Communion")
    src = anova.assign(eta_sq=0.9, p=0.01)
    text = pf.ablation_markdown(pd.Series({"positive": 0.3}), spread, src, anova, "tiny")
    assert "spreads 0.300 across sources vs 0.200 across bases" in text
    assert "source explains η² = 0.90 (p = 0.01) of the gap's variance for tiny, the base η² = 0.70" in text


def test_quantity_accuracy_and_order_sentences():
    one = pd.DataFrame({"n_pairs": [32, 32]})
    assert "No data-quantity ablation" in pf.quantity_markdown(one, pd.Series(dtype=float))
    two = pd.DataFrame({"n_pairs": [16, 32]})
    assert "Over 2 training-set sizes (16, 32 pairs)" in pf.quantity_markdown(two, pd.Series({"positive": 1.0}))
    m = pd.DataFrame({"model": ["a", "b"], "accuracy": [0.9, 0.6], "reward_var_whitened": [1.0, 3.0]})
    text = pf.accuracy_variance_markdown(m, np.nan, np.nan)
    assert text.startswith("Too few") and "the highest-variance one (b) has 3.000" in text
    assert "ρ between accuracy and whitened reward variance is -1.00" in pf.accuracy_variance_markdown(m, -1.0, 0.0)
    assert pf.seed_orders_markdown(pd.DataFrame()).startswith("One seed only")
    assert pf.step_orders_markdown([]) == ""
    steps = [{"n_blocks": 3, "prompt_label": "positive", "kendall_w": 0.5, "n_pair_flips": 1, "n_pairs": 1}]
    assert pf.step_orders_markdown(steps).startswith("Across the first seed's 3 checkpoints: under the positive")


def test_seed_orders_say_there_is_no_modal_order_when_every_seed_differs():
    from rmlib.analysis import durability as du

    three = pd.DataFrame({"prompt_label": ["positive"] * 9, "seed": np.repeat([0, 1, 2], 3),
                          "base_model": list("abc") * 3, "gap": [1, 2, 3, 2, 1, 3, 3, 2, 1]})
    text = pf.seed_orders_markdown(du.seed_orders(three))
    assert "3 seeds give 3 different orders, so there is no most common order" in text
    assert "most common order," not in text and "1 of 3 seeds" not in text
    agree = pf.seed_orders_markdown(du.seed_orders(three.assign(gap=[1, 2, 3, 1, 2, 3, 3, 2, 1])))
    assert "2 of 3 seeds give the most common order, a < b < c" in agree


def test_published_durability_judges_runs_and_names_a_failing_largest_run():
    from rmlib.analysis import durability as du

    rows = [{"file": f"f{q}", "data_source": "uf", "quantity_k": q, "method": "BT", "checkpoint": c,
             "base_family": fam, "gap": (5.0 if (q == 100 and c >= 2 and fam == "Llama") else -5.0 if fam == "Llama"
                                          else 0.0)}
            for q in (27, 100) for c in (1, 2, 3) for fam in ("Llama", "Gemma")]
    runs = du.published_run_orders(pd.DataFrame(rows))
    sizes = {"orders": {"27": "Llama < Gemma", "100": "Gemma < Llama"}, "kendall_w": 0.0, "n_pair_flips": 1,
             "n_pairs": 1}
    text = pf.published_durability_markdown(du.published_durability(runs, sizes), runs)
    assert "1 of 2 published runs with several checkpoints hold" in text
    assert "uf 100k BT: flipped at step 2 and stayed flipped to its final checkpoint, so it fails" in text
    assert "The largest data size, uf 100k BT, **fails**" in text and "uf 100k BT does not" in text
    assert "context, not the verdict" in text
