"""The fine-tuning chapter's sentences (templates/finetuning.md.j2), rendered from its results sections as the chapter
does: the same facts the old prose functions stated, now read from sections built on small planted inputs."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.finetuning import durability as du
from rmbook.chapters.finetuning import results
from rmbook.report.prose import render

MAIN = pd.DataFrame({"steps": [8, 8], "first_loss": [0.8, 0.6], "last_loss": [0.2, 0.4], "share_truncated": [0, 0.5]})
SPREAD = pd.Series({"negative": 0.1, "positive": 0.2})
ANOVA = pd.DataFrame({"prompt_label": ["positive"], "F": [5.0], "df": ["1, 2"], "p": [0.04], "eta_sq": [0.7]})


def _published() -> results.PublishedDurability:
    rows = [{"file": f"f{q}", "data_source": "uf", "quantity_k": q, "method": "BT", "checkpoint": c,
             "base_family": fam, "gap": (5.0 if (q == 100 and c >= 2 and fam == "Llama") else -5.0 if fam == "Llama"
                                          else 0.0)}
            for q in (27, 100) for c in (1, 2, 3) for fam in ("Llama", "Gemma")]
    runs = du.published_run_orders(pd.DataFrame(rows))
    sizes = {"orders": {"27": "Llama < Gemma", "100": "Gemma < Llama"}, "kendall_w": 0.0, "n_pair_flips": 1,
             "n_pairs": 1}
    return results.published(du.published_durability(runs, sizes), runs)


def test_training_and_evaluation_sentences():
    same = render("finetuning", "training", s=results.training(3, [0], ["a", "b"], True, MAIN, 8, 32, 96))
    assert same.startswith("3 runs. With its one seed, all 2 bases trained on **the same** data")
    assert "fell from 0.700" in same and "to 0.300" in same and "25% of the pairs" in same and "8 steps of 8" in same
    diff = render("finetuning", "training", s=results.training(3, [0], ["a", "b"], False, MAIN, 8, 32, 96))
    assert "**different** data" in diff
    final = pd.DataFrame({"n_test": [16, 20], "accuracy": [0.5, 0.75]})
    text = render("finetuning", "evaluation", s=results.evaluation(final, ["RM score"]))
    assert "from 0.50 to 0.75 (chance is 0.50) on 16–20 held-out" in text and text.endswith("chapter: RM score.")
    one = render("finetuning", "evaluation", s=results.evaluation(final.assign(n_test=16), ["RM score"]))
    assert "on 16 held-out pairs" in one


def test_imprint_and_ablation_sentences_follow_the_anova():
    agg = pd.DataFrame({"same_sign_as_base": [True, False, True]})
    none = render("finetuning", "imprint", s=results.imprint(agg, pd.DataFrame(), SPREAD, "Agency", "Communion"))
    assert none.startswith("The gap is *Agency* minus *Communion*. In 2 of 3 (base, prompt) cells")
    assert "0.100 under the negative prompt, 0.200 under the positive prompt." in none
    assert "With one seed per base" in none
    text = render("finetuning", "imprint", s=results.imprint(agg, ANOVA, SPREAD, "Agency", "Communion"))
    assert "F(1, 2) = 5.00, p = 0.04, η² = 0.70" in text and "t intervals across seeds" in text
    src = ANOVA.assign(eta_sq=0.9, p=0.01)
    abl = results.ablation(pd.Series({"positive": 0.3}), SPREAD, src, ANOVA, "tiny")
    text = render("finetuning", "ablation", s=abl)
    assert "spreads 0.300 across sources vs 0.200 across bases" in text
    assert "source explains η² = 0.90 (p = 0.01) of the gap's variance for tiny, the base η² = 0.70" in text
    assert "η²" not in render("finetuning", "ablation", s=results.ablation(pd.Series({"positive": 0.3}), SPREAD,
                                                                          pd.DataFrame(), ANOVA, "tiny"))
    assert "ABLATION_SOURCES" in render("finetuning", "no_ablation")


def test_quantity_trajectory_and_accuracy_sentences():
    moved, uf = pd.DataFrame({"gap": [0.1, -0.3]}), pd.Series({"Gemma": 1.25, "Llama": -3.0})
    one = results.trajectory(moved, pd.DataFrame({"n_pairs": [32, 32]}), pd.Series(dtype=float), uf)
    text = render("finetuning", "trajectory", s=one)
    assert "moved by 0.200 on average (largest 0.300). No data-quantity ablation" in text
    assert "changed by +1.2 (Gemma), -3.0 (Llama) median-rank points" in text
    two = results.trajectory(moved, pd.DataFrame({"n_pairs": [32, 16]}), pd.Series({"positive": 1.0}), uf)
    assert "Over 2 training-set sizes (16, 32 pairs)" in render("finetuning", "trajectory", s=two)
    assert "is 1.00 under the positive prompt. In the published" in render("finetuning", "trajectory", s=two)
    m = pd.DataFrame({"model": ["a", "b"], "accuracy": [0.9, 0.6], "reward_var_whitened": [1.0, 3.0]})
    text = render("finetuning", "accuracy_variance", s=results.accuracy_variance(m, np.nan, np.nan))
    assert text.startswith("Too few") and "the highest-variance one (b) has 3.000 at accuracy 0.60" in text
    text = render("finetuning", "accuracy_variance", s=results.accuracy_variance(m, -1.0, 0.0))
    assert "ρ between accuracy and whitened reward variance is -1.00" in text
    same = results.accuracy_variance(m.assign(reward_var_whitened=[3.0, 1.0]), -1.0, 0.0)
    assert render("finetuning", "accuracy_variance", s=same).endswith("it is also the highest-variance one.")


def test_seed_and_step_orders():
    pub = _published()
    assert render("finetuning", "seed_orders", d=results.durability(pub, du.seed_orders(pd.DataFrame(
        columns=["prompt_label", "seed", "base_model", "gap"])), [])).startswith("One seed only")
    assert render("finetuning", "step_orders", d=results.durability(pub, pd.DataFrame(), [])) == ""
    steps = [{"n_blocks": 3, "prompt_label": "positive", "kendall_w": 0.5, "n_pair_flips": 1, "n_pairs": 1}]
    text = render("finetuning", "step_orders", d=results.durability(pub, pd.DataFrame(), steps))
    assert text == ("Across the first seed's 3 checkpoints: under the positive prompt Kendall's W = 0.50, 1 of 1 base "
                    "pairs flip against the first checkpoint.")


def test_seed_orders_say_there_is_no_modal_order_when_every_seed_differs():
    three = pd.DataFrame({"prompt_label": ["positive"] * 9, "seed": np.repeat([0, 1, 2], 3),
                          "base_model": list("abc") * 3, "gap": [1, 2, 3, 2, 1, 3, 3, 2, 1]})
    pub = _published()
    text = render("finetuning", "seed_orders", d=results.durability(pub, du.seed_orders(three), []))
    assert "3 seeds give 3 different orders, so there is no most common order" in text
    assert "most common order," not in text and "1 of 3 seeds" not in text
    agree = results.durability(pub, du.seed_orders(three.assign(gap=[1, 2, 3, 1, 2, 3, 3, 2, 1])), [])
    assert "2 of 3 seeds give the most common order, a < b < c" in render("finetuning", "seed_orders", d=agree)
    four = pd.DataFrame({"prompt_label": ["negative"] * 8, "seed": np.repeat([0, 1, 2, 3], 2),
                         "base_model": list("ab") * 4, "gap": [1, 2, 2, 1, 1, 2, 2, 1]})
    tied = render("finetuning", "seed_orders", d=results.durability(pub, du.seed_orders(four), []))
    assert "the 4 seeds give 2 orders, none more common than another" in tied


def test_published_durability_judges_runs_and_names_a_failing_largest_run():
    text = render("finetuning", "published_durability", s=_published())
    assert "1 of 2 published runs with several checkpoints hold: uf 27k BT: holds; " in text
    assert "uf 100k BT: flipped at step 2 and stayed flipped to its final checkpoint, so it fails" in text
    flat = " ".join(text.split())
    # #63 item 2: "**fails**: that is the case the claim is about" counted the largest run twice
    assert "The largest data size, uf 100k BT, does not hold: one run of the 2, and the claims page counts it as one" \
        in flat and "uf 100k BT does not" in text and "the case the claim is about" not in flat
    assert "context, not the verdict" in text and "1 of 2 runs change the order" in text
    assert "; uf 100k BT: Llama < Gemma → Gemma < Llama." in text
    assert text.endswith("27k: Llama < Gemma; 100k: Gemma < Llama (Kendall's W = 0.00; 1 of 1 family pairs flip "
                         "against the smallest set).")


def test_a_tied_largest_run_neither_holds_nor_fails_on_the_page():
    """#63 item 6: the page said the largest run "does not hold" when it was tied at its final checkpoint."""
    rows = [{"file": f"f{q}", "data_source": "uf", "quantity_k": q, "method": "BT", "checkpoint": c,
             "base_family": fam, "gap": (0.0 if (q == 100 and c == 3) else -5.0) if fam == "Llama" else 0.0}
            for q in (27, 100) for c in (1, 2, 3) for fam in ("Llama", "Gemma")]
    runs = du.published_run_orders(pd.DataFrame(rows))
    s = results.published(du.published_durability(runs, {"orders": {}, "kendall_w": 0.0, "n_pair_flips": 0,
                                                         "n_pairs": 1}), runs)
    text = " ".join(render("finetuning", "published_durability", s=s).split())
    assert "The largest data size, uf 100k BT, neither holds nor fails (Llama and Gemma level" in text
    assert "does not hold" not in text
