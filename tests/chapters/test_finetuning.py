"""The fine-tuning chapter with tiny parameters: identical data across bases, checkpoints, ablations, durability.
(A rerun with another learning rate is tested below the notebook: tests/integration/test_finetuning_rerun.py.)"""
from __future__ import annotations


def test_finetuning_chapter_tiny(chapter):
    r = chapter.tiny("finetuning", isolated_cache=True)
    out, text = r.results, r.markdown
    runs = out["runs"]
    assert {x["base"] for x in runs} == {"tiny-llama", "tiny-qwen2"}
    # identical data and steps across bases, and the loss goes down on the easy synthetic rule
    assert out["training"]["same_data"] and len({x["data_hash"] for x in runs}) == 1
    assert len({x["steps"] for x in runs}) == 1 and out["training"]["steps"] == 8
    assert all(x["last_loss"] < x["first_loss"] for x in runs), runs
    final = [m for m in out["metrics"] if m["step"] == 8]
    assert len(final) == 2 and all(m["accuracy"] > 0.6 for m in final), final  # chance is 0.5
    assert {m["step"] for m in out["metrics"]} == {4, 8}
    # RMs and base LMs are both present and labelled by kind
    assert set(out["evaluation"]["reward_kinds"]) == {"RM score", "LM log-prob (implicit reward)"}
    ev = out["evaluation"]
    assert f"ranges from {ev['accuracy_min']:.2f} to {ev['accuracy_max']:.2f}" in text  # the sentence, from the section
    assert len(out["imprint"]) == 2 * 2 and out["n_published_final"] > 0
    assert "same** data" in text and "no across-seed interval" in text and "ABLATION_SOURCES" in text
    # durability of the published base-family orders, from the authors' checkpoint files
    pub = out["durability"]["published"]
    assert pub["n_runs"] == 4 and pub["checkpoints_n"] == 10 + 14 + 4 + 7  # skywork, uf 100k, 27k, 54k
    assert pub["final_n"] == 5 and 0 <= pub["final_claimed_holds"] <= 5
    uf100 = next(x for x in pub["runs"] if x["run"] == "ultrafeedback 100k BT")
    assert uf100["final_order"].startswith("Gemma < Llama")  # the published 100k run ends with the order flipped
    assert uf100["pair_flips"] >= 1 and pub["runs_with_flip"] >= 1
    # judged run by run: the largest-data run flips at step 8000 and stays flipped, so it fails, and so does the
    # largest size
    judged = next(x for x in pub["runs_judged"] if x["run"] == "ultrafeedback 100k BT")
    assert (judged["holds"], judged["flip_step"], judged["persistent"]) == (False, 8000, True)
    assert pub["n_runs_failed"] == 1 and pub["largest_run_holds"] is False and pub["final_n_failed"] == 1
    assert "Judged run by run" in text and "stayed flipped to its final checkpoint" in text
    assert "UltraFeedback 13k" not in text
    # one seed: no across-seed order and no base-effect test, and the page says so
    assert out["durability"]["ours"] is None and out["base_effect"] is None and out["ablation"] is None
    assert "One seed only" in text


def test_finetuning_chapter_seeds_and_ablations(chapter):
    """Two seeds, a data-source ablation and a data-quantity ablation: the sections that the default tiny run skips."""
    r = chapter("finetuning")
    out, text = r.results, r.markdown
    runs = out["runs"]
    assert len(runs) == 2 * 2 + 2 + 1
    main = [x for x in runs if x["sources"] == "synthetic_marker" and x["n_pairs"] == 32]
    # within a seed every base saw the same pairs; the two seeds drew different ones
    assert out["training"]["same_data"] and len({x["data_hash"] for x in main}) == 2
    assert {x["n_pairs"] for x in runs if x["base"] == "tiny-llama" and x["sources"] == "synthetic_marker"} == {16, 32}
    # all checkpoints for the first seed's main runs, only the final one elsewhere
    steps = {(m["run"], m["step"]) for m in out["metrics"]}
    first_seed_main = {x["run"] for x in main if x["seed"] == 0}
    assert all({(run, 4), (run, 8)} <= steps for run in first_seed_main)
    assert all((x["run"], 4) not in steps and (x["run"], 8) in steps for x in runs if x["run"] not in first_seed_main)
    # across-seed intervals and one-way ANOVAs for the base and for the data source
    assert all(row["n_seeds"] == 2 and row["ci_low"] <= row["rm_gap"] <= row["ci_high"] for row in out["imprint"])
    for key, factor in (("base_anova", "base_model"), ("source_anova", "sources")):
        rows = out[key]
        assert {row["prompt_label"] for row in rows} == {"positive", "negative"}, rows
        assert all(row["factor"] == factor and row["df"] == "1, 2" and 0 <= row["p"] <= 1 for row in rows)
    assert {q["n_pairs"] for q in out["quantity"]} == {16, 32}
    assert "no across-seed interval" not in text and "η² =" in text
    assert "correlation with the number of pairs" in text and out["trajectory"]["quantity"]["sizes"] == [16, 32]
    assert out["ablation"]["first_base"] == "tiny-llama" and len(out["ablation"]["effects"]) == 2
    ours = out["durability"]["ours"]
    assert ours["n_seeds"] == 2 and ours["pairs"] == 1
    # two seeds either agree (a modal order given by both) or differ (no modal order, and none is printed)
    assert (ours["modal_order_exists"], ours["n_seeds_modal_order"]) in ((True, 2), (False, None))
    assert ours["kendall_w"] is None or 0 <= ours["kendall_w"] <= 1
    assert out["base_effect"]["n_prompts"] == 2
    assert "seeds give the most common order" in text or "so there is no most common order" in text
