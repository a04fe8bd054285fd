"""templates/good_teachers.md.j2: the good_teachers sentences say what the numbers say, rendered from sections built
by rmbook.chapters.good_teachers.results on small planted inputs."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.good_teachers import results
from rmbook.chapters.good_teachers import settings as ts
from rmbook.report.prose import render

P = results.Parameters(kl_coef=1.0, lr=0.002, steps=200, gain_steps=50, gain_target=0.25, subset_size=100,
                       subset_mass=0.95, n_resamples=19, seed=0)


def _cor(verdicts: dict) -> pd.DataFrame:
    return pd.DataFrame([{"predictor": p, "outcome": "gain_T", "stratum": s, "defined": True, "rho": 0.5,
                          "ci_low": 0.1, "ci_high": 0.9, "verdict": v} for (p, s), v in verdicts.items()])


def _replication(rep: dict, cor: pd.DataFrame) -> str:
    return render("good_teachers", "replication", s=results.replication("published", rep, cor))


def test_replication_reports_each_part_and_where_it_fails():
    cor = _cor({("variance_pi0", "random"): "predicts the opposite", ("variance_pi0", "top"): "predicts",
                ("accuracy_uniform", "uniform"): "does not predict", ("accuracy_uniform", "top"): "does not predict"})
    cor.loc[cor["stratum"] == "random", ["rho", "ci_low", "ci_high"]] = [-0.71, -0.99, -0.03]
    rep = {"n_slower_more_accurate": 3, "n_slower_more_accurate_margin": 2, "accuracy_margin": 0.01,
           "n_slower_lower_variance": 1, "n_slower_higher_variance": 0, "variance_explains": [],
           "variance_predicts_under": ["top"], "variance_does_not_predict_under": ["random"],
           "variance_reversed_under": ["random"], "variance_not_established_under": [],
           "accuracy_predicts_under": [], "reward_max_predicts_under": []}
    text = _replication(rep, cor)
    assert "(1) in 3 RM pairs" in text and "2 of them with an accuracy lead above 0.01" in text
    assert "under 0 of 2 π_0" in text and "part (1) **replicates**" in text
    assert "predicts the gain under 1 of 2 non-uniform π_0 (top)" in text
    # an interval wholly below 0 is the claim reversed, not a failure to replicate
    assert "**replicates** under top (ρ = +0.50 [+0.10, +0.90]); it is **reversed** under random" in text
    assert "is **reversed** under random (ρ = -0.71 [-0.99, -0.03]" in text and "does not replicate" not in text
    assert "predicts the gain under 0 of 0 π_0." in text  # no reward_max row
    unclear = _replication({**rep, "variance_reversed_under": [], "variance_not_established_under": ["random"]},
                           cor.assign(verdict="does not predict"))
    assert "is **not established** under random" in unclear and "reversed" not in unclear
    close = _replication({**rep, "n_slower_more_accurate_margin": 0}, cor)
    assert "part (1) **is not established** (every such pair's accuracy lead is within 0.01)" in close
    none = _replication({**rep, "n_slower_more_accurate": 0, "n_slower_more_accurate_margin": 0}, cor)
    # an existence claim: no pair found is not established, not "does not replicate" (#38: one bar both ways)
    assert "**is not established** (no such pair among these RMs, which does not show that there is none)" in none
    every = _replication({**rep, "variance_predicts_under": ["top", "random"], "variance_reversed_under": [],
                          "variance_does_not_predict_under": []}, cor)
    assert "part (2) **replicates** under every one." in every
    empty = _replication({**rep, "variance_predicts_under": [], "variance_reversed_under": [],
                          "variance_does_not_predict_under": []}, cor[cor["predictor"] != "variance_pi0"])
    assert "part (2) cannot be judged (no non-uniform π_0)." in empty


def test_the_replication_section_counts_the_strata_and_keeps_the_claims_fields():
    cor = _cor({("variance_pi0", "top"): "predicts", ("variance_pi0", "pooled"): "predicts",
                ("reward_max", "top"): "predicts"})
    rep = {"n_slower_more_accurate": 0, "n_slower_more_accurate_margin": 0, "accuracy_margin": 0.01,
           "n_slower_lower_variance": 0, "n_slower_higher_variance": 0, "variance_explains": [],
           "variance_predicts_under": ["top"],
           "variance_does_not_predict_under": [], "accuracy_predicts_under": [], "reward_max_predicts_under": ["top"]}
    s = results.replication("published", rep, cor)  # an older block without the reversed/not-established split
    assert (s.n_variance_strata, s.n_reward_max_strata, s.n_accuracy_strata) == (1, 1, 0)
    assert s.variance_everywhere and s.part1 == "not established" and s.variance_not_established_under == []
    assert [r.stratum for r in s.variance_replicates] == ["top"] and s.variance_replicates[0].rho == 0.5


def test_slower_gives_the_share_the_variance_explains_per_pi0():
    pairs = pd.DataFrame({"pi0": ["uniform", "uniform", "top"], "accuracy_gap": [0.002, 0.05, 0.03],
                          "lower_variance": [False, False, True]})
    counts = pd.DataFrame({"RM pairs": [3, 3], "more accurate, slower": [2, 1], "... with lower variance": [0, 1]},
                          index=pd.Index(["uniform", "top"], name="pi0"))
    s = results.slower("published", pairs, counts, 1)
    text = render("good_teachers", "slower", s=s)
    assert "In 3 of 6 RM pairs" in text and "in 2 of them its accuracy lead exceeds 0.01" in text
    assert "In 1 of the 3 the slower RM also has the lower variance" in text
    assert "0 of 2 under *uniform*; 1 of 1 under *top* (under a uniform π_0 every variance is 1" in text
    assert text.endswith("none there). Judged by accuracy over π_0's own pairs instead, there are 1 such pairs.")
    assert render("good_teachers", "slower_heading", s=s) == "**published**"
    no_uniform = results.slower("published", pairs.iloc[2:], counts.iloc[1:], 0)
    assert "1 of 1 under *top*. Judged" in render("good_teachers", "slower", s=no_uniform)


def test_planted_says_which_rm_teaches_faster():
    table = pd.DataFrame({"model": ["accurate", "noisy"], "accuracy_uniform": [1.0, 0.8], "variance_pi0": [0.01, 0.9],
                          "gain_T": [0.05, 0.4], "eventual_gain": [1.2, 0.9]})
    text = render("good_teachers", "planted", s=results.planted("published", table), p=P)
    assert "The less accurate RM teaches faster" in text and "slow, not wrong" in text
    assert "variance 0.0100 under this π_0 and gains 0.050 sd of r* in 50 steps" in text
    slow = results.planted("published", table.assign(gain_T=[0.5, 0.4], eventual_gain=[0.8, 0.9]))
    slow_text = render("good_teachers", "planted", s=slow, p=P)
    assert "does not teach faster here" in slow_text and "with β = 1 a reward" in slow_text


def _table(fall: float = 0.0) -> pd.DataFrame:
    rows = [{"pi0": pi0, "model": f"m{i}", "accuracy_uniform": 0.6 + 0.05 * i, "accuracy_pi0": 0.6 + 0.05 * i,
             "variance_pi0": 1.0 if pi0 == "uniform" else 0.2 + 0.1 * i, "gain_T": 0.1 + 0.02 * i,
             "steps_to_target": float("nan") if i == 0 and pi0 == "uniform" else 10.0, "eventual_gain": 1.0,
             "objective_min_increase": -fall} for pi0 in ("uniform", "policy (p)") for i in range(3)]
    return pd.DataFrame(rows)


def test_speed_names_the_fastest_and_slowest_teacher_and_whether_j_rose():
    text = render("good_teachers", "speed", s=results.speed("published", _table()), p=P)
    assert text.startswith("**published**: under *uniform*, m2 teaches fastest (gain 0.140 after 50 steps) and m0 "
                           "slowest (0.100); 1 of 3 RMs never reach a gain of 0.25 within 200 steps; under *policy (p)*")
    assert "all reach a gain of 0.25 within 200 steps. The objective J rose" in text and "(as gradient" in text
    fell = render("good_teachers", "speed", s=results.speed("published", _table(0.003)), p=P)
    assert "**except** for a fall of 0.003: the sub-steps are too coarse here." in fell


def _setting(name: str) -> ts.Setting:
    notes = ({"top_rm": "m0"} if name == "published" else
             {"policy": "p", "coverage": pd.DataFrame({"model": ["m0", "(all models)"], "share_tokens": [1.0, 0.5],
                                                       "share_pi0_mass": [1.0, 0.9]})})
    return ts.Setting(name, pd.DataFrame({f"m{i}": [0.0, 1.0] for i in range(3)}), np.arange(4.0), "r*",
                      np.array(list("abcd")), {"policy (p)": np.array([0.4, 0.4, 0.1, 0.1]), "uniform": np.ones(4) / 4},
                      {f"m{i}": "RM score" for i in range(3)}, notes)


def test_accuracy_setup_and_the_short_sentences():
    tab = _table()
    s = results.setting_summary("published", _setting("published"), tab)
    acc = render("good_teachers", "accuracy", a=results.accuracy({"published": s}, 0.0123, 5000))
    assert acc.startswith("**published**: accuracy over uniform pairs runs from 0.600 (m0) to 0.700 (m2); the "
                          "variance under each π_0 runs 1.00 to 1.00 under *uniform*; 0.20 to 0.40 under *policy (p)*.")
    assert acc.endswith("within 0.012 of the exact values (the standard error of such an estimate is about 0.007).")
    assert render("good_teachers", "setting_heading", s=s) == "**published** (4 responses; r* = r*)"
    assert render("good_teachers", "too_few", s=s).startswith("**published**: 3 proxy RMs: too few for a rank")
    settings = {"published": _setting("published")}
    top = render("good_teachers", "setup", p=P, s=results.setup(settings, top_rm_given=False, top_shown=True))
    assert top.startswith("β = 1, LR = 0.002 per effective item, 200 steps; teaching speed is the gain after 50 steps")
    assert top.endswith("holds the top 100 items of **m0** (the most accurate RM over uniform pairs).")
    hidden = render("good_teachers", "setup", p=P, s=results.setup(settings, top_rm_given=True, top_shown=False))
    assert hidden.endswith("a gain of 0.25 sd of r*.")


def test_absent_models_and_a_skipped_compute_mode():
    ran = results.run("both", {"published": 1, "compute": 1}, {"local:x": "no trained run"})
    text = render("good_teachers", "absent", r=ran)
    assert text.startswith("**Absent models:** `local:x`: no trained run. The compute-mode analysis uses the models")
    assert "make chapter NB=finetuning" in text
    skipped = results.run("both", {"published": 1}, {"local:x": "gone"})
    assert "**The compute-mode analysis is skipped**" in render("good_teachers", "absent", r=skipped)
    assert render("good_teachers", "compute_skipped", r=skipped) == \
        "Compute mode did not run in this build (`MODE` is 'both', and models were absent: see above)."
    assert render("good_teachers", "compute_skipped", r=results.run("published", {}, {})) == \
        "Compute mode did not run in this build (`MODE` is 'published')."


def test_verdicts_list_each_predictor_under_each_pi0_and_pooled():
    main = _cor({("variance_pi0", "top"): "predicts", ("variance_pi0", "pooled"): "does not predict",
                 ("reward_max", "top"): "predicts"}).drop(columns=["outcome", "defined"])
    text = render("good_teachers", "verdicts", s=results.verdicts("published", main), p=P)
    assert text == ("**published**, gain after 50 steps:\n\n- **variance_pi0**: under *top* ρ = +0.50 [+0.10, +0.90] "
                    "(predicts); pooled over the π_0 ρ = +0.50 [+0.10, +0.90] (does not predict).\n"
                    "- **reward_max**: under *top* ρ = +0.50 [+0.10, +0.90] (predicts).")


def test_compute_says_which_proxy_teaches_fastest_and_whether_the_explanations_part():
    tab = _table()
    s = results.compute(_setting("compute"), tab)
    text = render("good_teachers", "compute", s=s, p=P)
    assert text.startswith("The policy is **p**, r* is **r***. 4 tokens are common to all models (50% of the policy's "
                           "non-special tokens), holding 90% of the policy's next-token probability")
    assert "its effective number of tokens is 2.9.\n\n- **m0** (RM score): accuracy 0.600 over uniform pairs" in text
    assert "Gain after 50 steps: 0.100 from the policy's π_0, 0.100 from a uniform one" in text
    assert text.endswith("**m2** teaches fastest of the 3 proxies; it has the highest variance under the policy and "
                         "has the highest accuracy over the policy's pairs (with these proxies the two explanations "
                         "cannot be told apart).")
    other = results.compute(_setting("compute"), tab.assign(variance_pi0=tab["variance_pi0"][::-1].values))
    assert render("good_teachers", "compute", s=other, p=P).endswith(
        "it does not have the highest variance under the policy and has the highest accuracy over the policy's pairs.")
