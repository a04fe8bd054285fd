"""rmbook.analysis.claims.catalogue and the chapters' claims.py: planted results give the verdicts the rules say; every claim names its source."""
from __future__ import annotations

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims.analysis import Evidence, verdict


def _framing(by_source: dict) -> dict:
    return {"main_source": "afinn", "halves_by_source": by_source,
            "cell_counts_by_half": [{"half": "pos_prompts", "n_congruent_steeper": 540, "n_cells": 540},
                                    {"half": "neg_prompts", "n_congruent_steeper": 3, "n_cells": 540}]}


def _half(holds, reversed_, n=10):
    return {"holds": holds, "reversed": reversed_, "unclear": n - holds - reversed_, "n": n}


def _claim(key: str, e: Evidence):
    parts = next(c for c in claims.CLAIMS if c.key == key).evaluate(e)
    v, reason = verdict(parts)
    return parts, (v, e.words(reason))


def test_planted_results_give_the_verdicts_the_rules_say(planted):
    framing = _framing({"afinn": {"pos_prompts": _half(10, 0), "neg_prompts": _half(0, 9)}})
    parts, (v, _) = _claim("framing", planted({"framing": framing}))
    assert [p.outcome for p in parts] == ["holds", "fails"]
    assert v == "partly"  # opposite halves are reported as such, not as "no effect"
    assert {r.path for p in parts for r in p.refs} >= {"halves_by_source['afinn'].pos_prompts.holds",
                                                       "cell_counts_by_half.where(half='neg_prompts').n_cells"}


def test_a_half_that_fails_on_one_lexicon_only_is_lexicon_dependent(planted):
    # defect 10 of #25: AFINN alone (its -4/-5 slurs) made the negative half "fail"; Warriner gives 10 of 10
    framing = _framing({"afinn": {"pos_prompts": _half(10, 0), "neg_prompts": _half(1, 8)},
                        "vader": {"pos_prompts": _half(9, 0), "neg_prompts": _half(5, 0)},
                        "warriner": {"pos_prompts": _half(10, 0), "neg_prompts": _half(10, 0)}})
    parts, (v, reason) = _claim("framing", planted({"framing": framing}))
    assert [p.outcome for p in parts] == ["holds", "mixed"]
    assert parts[1].note == "lexicon-dependent: holds with WARRINER; mixed with VADER; fails with AFINN"
    assert v == "partly" and "lexicon-dependent" in reason


def test_skewness_and_the_frequency_preference_are_read_from_typed_results(planted):
    parts, _ = _claim("asymmetry", planted({"distributions": {
        "skew_summary": {"published": {"n": 10, "n_negative": 1, "n_positive": 8}}}}))
    assert parts[0].outcome == "holds" and "below 0 for 1 and above 0 for 8 of 10 RMs" in parts[0].evidence
    assert {r.path for r in parts[0].refs} == {"skew_summary['published'].n", "skew_summary['published'].n_negative",
                                               "skew_summary['published'].n_positive"}
    # #38 item 6: an RM skewed the other way is asymmetric too; 4 one way and 4 the other used to read "mixed"
    parts, _ = _claim("asymmetry", planted({"distributions": {
        "skew_summary": {"published": {"n": 10, "n_negative": 4, "n_positive": 4}}}}))
    assert parts[0].outcome == "holds" and "8 clearly asymmetric, either way" in parts[0].evidence
    parts, _ = _claim("asymmetry", planted({"distributions": {
        "skew_summary": {"published": {"n": 10, "n_negative": 0, "n_positive": 0}}}}))
    assert parts[0].outcome == "not established"  # intervals spanning 0 do not show a symmetric distribution
    verdicts = [{"source": s, "prompts": pv, "n_above": 10 if pv == "positive" else k, "n_below": 0, "n_models": 10}
                for s, k in (("bnc", 10), ("wordfreq", 3)) for pv in ("positive", "negative")]
    parts, (v, _) = _claim("mere_exposure", planted({"mere_exposure": {"matchings": ["bnc", "wordfreq"],
                                                                       "by_model": verdicts}}))
    assert [p.outcome for p in parts] == ["holds", "mixed"] and v == "partly"
    assert "by_model.where(prompts='negative', source='wordfreq').n_above" in {r.path for r in parts[1].refs}


def _panels(diffs: dict, p_fdr: float, by=("category", "valence")) -> list[dict]:
    return [{by[0]: a, by[1]: b, "difference": d, "p": p_fdr, "p_fdr": p_fdr, "reject": p_fdr < 0.05}
            for (a, b), d in diffs.items()]


def _summary(panels, n_sig: int, n_a=4, n_b=6) -> dict:
    return {"panels": panels, "n_panels": len(panels), "n_significant_fdr": n_sig, "n_significant_raw": n_sig,
            "min_attainable_p": claims.exact_two_group_floor(n_a, n_b), "models_per_family": {"Gemma": n_a, "Llama": n_b}}


CLAIMED = {("Agency", "positive"): 4.2, ("Agency", "negative"): -5.6, ("Communion", "positive"): -4.2,
           ("Communion", "negative"): 5.9}


def test_big_two_in_the_claimed_direction_with_four_against_six_models_is_not_established(planted):
    # defect 2 of #25: 4 of 4 panels the claimed way, FDR p .33, read "does not"
    big_two = {"results": {"published": _summary(_panels(CLAIMED, 0.33), 0)}}
    parts, (v, _) = _claim("big_two", planted({"big_two": big_two}))
    assert [p.outcome for p in parts] == ["not established", "not established"] and v == "not established"
    assert "both panels point the claimed way" in parts[0].evidence
    assert "results['published'].panels.where(category='Agency', valence='positive').p_fdr" in {
        r.path for r in parts[0].refs}
    assert parts[0].floor == claims.bh_floor(2 / 210, 4) and "p ≥ 0.0095" in parts[0].evidence


def test_big_two_reversed_and_significant_does_not_replicate(planted):
    reversed_ = {k: -d for k, d in CLAIMED.items()}
    big_two = {"results": {"published": _summary(_panels(reversed_, 0.01), 4)}}
    parts, (v, _) = _claim("big_two", planted({"big_two": big_two}))
    assert [p.outcome for p in parts] == ["fails", "fails"] and v == "does not"
    right = {"results": {"published": _summary(_panels(CLAIMED, 0.01), 4)}}
    assert _claim("big_two", planted({"big_two": right}))[1][0] == "replicates"


def _mfd2(n_sig: int) -> dict:
    """MFD2 panels in miniature: the first ``n_sig`` panels (care positive, care negative, fairness positive, ...)
    significant after FDR."""
    diffs = {(f, v): d for f, d in (("care", -36), ("fairness", 72), ("loyalty", -113), ("authority", 72),
                                    ("sanctity", -57)) for v, d in (("positive", d), ("negative", -d / 2))}
    panels = _panels(diffs, 0.12, by=("foundation", "valence"))
    for panel in panels[:n_sig]:
        panel |= {"p_fdr": 0.01, "reject": True}
    split = [{**p, "category": f"{p['foundation']}.{m}"} for m in ("virtue", "vice") for p in panels]
    for p in split:
        del p["foundation"]
    return {"by_foundation": _summary(panels, n_sig), "results": {"published": _summary(split, 0)}}


def test_mfd2_counts_foundations_not_panels(planted):
    """#63 item 7: one foundation significant under both valences gave two significant panels, which satisfied
    "several foundations"."""
    parts, (v, _) = _claim("mfd2", planted({"moral_foundations": _mfd2(2)}))
    assert parts[0].outcome == "not established" and v == "not established"
    assert "1 of 5 foundations (care)" in " ".join(parts[0].evidence.split())
    parts, (v, _) = _claim("mfd2", planted({"moral_foundations": _mfd2(3)}))
    assert parts[0].outcome == "holds" and v == "replicates"


def test_mfd2_without_significant_panels_is_not_established_and_states_its_floor(planted):
    parts, (v, _) = _claim("mfd2", planted({"moral_foundations": _mfd2(0)}))
    assert parts[0].outcome == "not established" and v == "not established"
    assert "Gemma-based RMs rank care, loyalty, sanctity higher" in parts[0].evidence
    assert "turns round under negative prompts for 5 of 5 foundations" in parts[0].evidence
    assert parts[0].floor == claims.bh_floor(2 / 210, 10, k=claims.MULTIPLE)
    assert _claim("mfd2", planted({"moral_foundations": _mfd2(3)}))[1][0] == "replicates"


def _three_way(d: float, p: float) -> dict:
    return {"three_way_models": {"difference": d, "p": p, "min_attainable_p": 2 / 210, "claimed_sign": 1,
                                 "n_a": 4, "n_b": 6},
            "three_way": {"term": "family[T.Llama]:category[T.Communion]:valence[T.positive]", "estimate": d,
                          "p": 2e-15}}


def test_love_and_freedom_are_read_per_model_and_word(planted):
    ranks = [{"model": f"org/{nick}", "nickname": nick, "family": "x", "word": w, "rank": r, "n_words": 263}
             for nick, got in (("R-Gem-2B", {"love": 3, "freedom": 40}), ("R-Lla-3B", {"love": 2, "freedom": 9}))
             for w, r in got.items()]
    parts, (v, _) = _claim("love_freedom", planted({"big_two": {"love_freedom": ranks}}))
    assert [p.outcome for p in parts] == ["holds", "fails"] and v == "partly"
    assert "R-Lla-3B: 'freedom' rank 9, 'love' rank 2 of 263 words" == parts[1].evidence
    assert "love_freedom.where(nickname='R-Gem-2B', word='love').rank" in {r.path for r in parts[0].refs}


def test_ranks_too_close_to_call_and_a_median_tau_at_the_threshold_decide_nothing(planted):
    """#63 item 6: love and freedom one rank apart decided the order, and median τ 0.599 "held"."""
    ranks = [{"model": f"org/{nick}", "nickname": nick, "family": "x", "word": w, "rank": r, "n_words": 263}
             for nick, got in (("R-Gem-2B", {"love": 3, "freedom": 4}), ("R-Lla-3B", {"love": 9, "freedom": 2}))
             for w, r in got.items()]
    parts, _ = _claim("love_freedom", planted({"big_two": {"love_freedom": ranks}}))
    assert [p.outcome for p in parts] == ["not established", "holds"]
    assert "too close to call" in parts[0].evidence and "too close" not in parts[1].evidence
    het = _heterogeneity(0.0984)
    het["runs"]["published"]["agreement"]["tau_median"] = 0.599
    parts, _ = _claim("heterogeneity", planted({"heterogeneity": het}))
    assert parts[0].outcome == "not established" and "too close to call" in parts[0].evidence


def test_three_way_is_judged_on_models_not_on_prompts_as_replicates(planted):
    # defect 1 of #25: "replicates" on a mixed-model p that treats 54 prompts as independent replicates
    parts, (v, _) = _claim("three_way", planted({"big_two": _three_way(19.8, 0.076)}))
    assert [p.outcome for p in parts] == ["not established", "holds"] and parts[1].context
    assert v == "not established" and "+19.8 rank points" in parts[0].evidence
    assert {r.path for r in parts[0].refs} >= {"three_way_models.difference", "three_way_models.claimed_sign"}
    parts, (v, _) = _claim("three_way", planted({"big_two": _three_way(-19.8, 0.01)}))
    assert parts[0].outcome == "fails" and v == "does not"  # the sign is checked
    assert _claim("three_way", planted({"big_two": _three_way(19.8, 0.01)}))[1][0] == "replicates"


def test_rms_trained_here_are_context_with_their_power_stated(planted):
    finetuning = {"durability": {"published": {"final_claimed_holds": 4, "final_n": 5},
                                 "ours": {"n_seeds_modal_order": 0, "n_seeds": 3, "kendall_w": 0.1}},
                  "base_effect": {"n_prompts_significant": 0, "n_prompts": 2},
                  "metrics": [{"run": r, "step": s, "accuracy": a} for r, a in (("a", 0.5), ("b", 0.77))
                              for s in (16, 64)]}
    finetuning["durability"]["published"] |= {"final_n_failed": 0, "final_largest_run": "uf 100k",
                                              "final_largest_run_holds": True, "final_largest_run_tied": False,
                                              "final_failed_runs": []}
    parts, (v, _) = _claim("ablations", planted({"finetuning": finetuning}))
    # 0 of 2 prompts significant: unclear, not against (#38 item 2; it read "fails")
    assert [(p.outcome, p.context) for p in parts] == [("holds", False), ("not established", True)]
    assert v == "replicates" and "held-out accuracy 0.50–0.77" in parts[1].evidence


def test_ablation_runs_are_units_of_the_share_rule_not_vetoes(planted):
    """#38 item 5: the largest data size alone, one run without replicates, decided "fails"; 4 of 5 runs holding
    read "does not". Now the runs are the units of the share rule, and the page names the run that does not hold."""
    published = {"final_claimed_holds": 4, "final_n": 5, "final_n_failed": 1, "final_largest_run": "uf 100k",
                 "final_largest_run_holds": False, "final_largest_run_tied": False, "final_failed_runs": ["uf 100k"]}
    finetuning = {"durability": {"published": published, "ours": None},
                  "base_effect": {"n_prompts_significant": 0, "n_prompts": 2}, "metrics": []}
    parts, (v, _) = _claim("ablations", planted({"finetuning": finetuning}))
    assert parts[0].outcome == "holds" and v == "replicates"
    assert "in 4 of 5 published runs" in parts[0].evidence and "not in uf 100k" in parts[0].evidence
    assert "each one run without replicates" in parts[0].evidence
    published |= {"final_claimed_holds": 3, "final_n_failed": 2, "final_failed_runs": ["uf 100k", "hh 10k"]}
    assert _claim("ablations", planted({"finetuning": finetuning}))[0][0].outcome == "mixed"
    published |= {"final_claimed_holds": 1, "final_n_failed": 4}
    assert _claim("ablations", planted({"finetuning": finetuning}))[0][0].outcome == "fails"


def test_every_claim_names_its_source_and_unit():
    for c in claims.CLAIMS:
        assert c.stated_in and c.unit and c.test and c.chapters and c.paper in (claims.FACCT, claims.ICLR, claims.RAZIN)
    assert len({c.key for c in claims.CLAIMS}) == len(claims.CLAIMS)


def _good_teachers(var_verdicts: dict, n_slower: int, accurate_gain=0.01, noisy_gain=0.2,
                   n_margin: int | None = None) -> dict:
    """A good_teachers results file in miniature: the replication block, the correlations it summarises, the
    planted case."""
    yes = [s for s, v in var_verdicts.items() if v == "predicts"]
    return {"parameters": {"subset_size": 500}, "replication": {"published": {
        "n_slower_more_accurate": n_slower, "accuracy_margin": 0.01,
        "n_slower_more_accurate_margin": n_slower if n_margin is None else n_margin,
        "n_slower_lower_variance": 0, "n_slower_higher_variance": 0, "variance_explains": [
            {"pi0": "uniform", "n_inversions": n_slower, "n_inversions_margin": n_slower, "n_lower_variance": 0,
             "n_higher_variance": 0, "share": 0.0}],
        "variance_predicts_under": yes,
        "variance_does_not_predict_under": [s for s in var_verdicts if s not in yes],
        "accuracy_predicts_under": [], "reward_max_predicts_under": []}},
        "correlations": {"published": [
            {"predictor": "variance_pi0", "outcome": "gain_T", "stratum": s, "rho": 0.8 if v == "predicts" else -0.7,
             "ci_low": 0.2 if v == "predicts" else -0.9, "ci_high": 0.9, "verdict": v}
            for s, v in var_verdicts.items()]},
        "planted": [{"model": "accurate", "gain_T": accurate_gain}, {"model": "noisy", "gain_T": noisy_gain}]}


def _razin(planted, results) -> dict:
    e = planted({"good_teachers": results})
    e.reasons = {"good_teachers": "good_teachers.json not found in /x"}
    return {c.key: c.evaluate(e) for c in claims.CLAIMS if c.chapters == ("good_teachers",)}


def test_good_teachers_results_give_a_computed_verdict_for_razin_et_al(planted):
    parts = _razin(planted, _good_teachers({"random 500": "predicts the opposite", "top 500 of R-Gem-2B": "predicts"},
                                           54))
    acc, var = parts["accuracy_not_speed"], parts["low_variance_slow"]
    assert [p.outcome for p in acc][:2] == ["holds", "holds"] and acc[1].context and acc[2].context
    assert verdict(acc)[0] == "replicates" and "in 54 pairs" in acc[0].evidence
    assert var[0].outcome == "mixed" and verdict(var)[0] == "partly"  # predicts under one π_0, the opposite under one
    assert "top 500 of R-Gem-2B: +0.80 [+0.20, +0.90] (predicts)" in var[0].evidence
    assert "holds 500 items" in var[0].evidence  # every number shown is one the chapter wrote
    assert {r.path for r in var[0].refs} >= {"replication['published'].variance_predicts_under",
                                             "parameters.subset_size"}
    everywhere = _razin(planted, _good_teachers({"random 500": "predicts", "top 500 of R-Gem-2B": "predicts"}, 0, 0.3,
                                                0.1))
    assert verdict(everywhere["low_variance_slow"])[0] == "replicates"
    # no such pair: not finding one does not show there is none (the planted case is context)
    assert verdict(everywhere["accuracy_not_speed"])[0] == "not established"


def test_inversions_under_a_uniform_pi0_are_unclear_for_the_variance_mechanism(planted):
    """#38 item 2: "low variance explains the inversions: fails" counted the uniform-π_0 inversions, where every RM
    has variance 1, against the mechanism."""
    results = _good_teachers({"random 500": "predicts"}, 18)
    mechanism = _razin(planted, results)["accuracy_not_speed"][2]
    assert mechanism.outcome == "not established" and "clearly higher one in 0" in mechanism.evidence
    rep = results["replication"]["published"]
    rep |= {"n_slower_more_accurate": 20, "n_slower_higher_variance": 2, "n_slower_lower_variance": 0}
    assert _razin(planted, results)["accuracy_not_speed"][2].outcome == "mixed"
    rep |= {"n_slower_higher_variance": 16}
    assert _razin(planted, results)["accuracy_not_speed"][2].outcome == "fails"


def test_razin_claims_say_not_computed_in_this_run_without_good_teachers_results(planted):
    for results in (None, {"replication": {}, "correlations": {}, "planted": []}):
        for key, parts in _razin(planted, results).items():
            assert all(p.outcome == "untestable" and p.evidence.startswith("not computed in this run") for p in parts)
            assert verdict(parts)[0] == "not testable here", key
    assert "good_teachers.json not found" in _razin(planted, None)["low_variance_slow"][0].evidence


def test_a_margin_keeps_a_0002_accuracy_inversion_from_proving_the_claim(planted):
    # defect 8 of #25: any inversion met the existence rule, including accuracy gaps of 0.002
    parts = _razin(planted, _good_teachers({"random 500": "predicts"}, 7, n_margin=0))
    assert parts["accuracy_not_speed"][0].outcome == "not established"
    assert "in 0 of them its accuracy lead exceeds 0.01" in parts["accuracy_not_speed"][0].evidence


def _durability(largest_holds: bool, n_failed: int, n_runs: int = 2, failing: str = "uf 100k",
                largest_tied: bool = False) -> dict:
    names = ["uf 27k", "uf 54k", "hh 10k", "uf 100k"][-n_runs:]
    runs = [{"run": r, "flip_step": 8000 if (r == failing and not (largest_holds or largest_tied)) else None}
            for r in names]
    return {"durability": {"published": {
        "n_runs_held": n_runs - n_failed, "n_runs_judged": n_runs, "n_runs_failed": n_failed, "largest_run": "uf 100k",
        "largest_run_holds": largest_holds, "largest_run_tied": largest_tied, "runs_judged": runs,
        "checkpoints_claimed_holds": 28,
        "checkpoints_n": 35}, "ours": None}}


def test_durability_is_judged_over_runs_and_names_the_run_that_flips(planted):
    # defect 4 of #25: 28 of 35 pooled checkpoints read "holds" although UF-100k ends flipped; #38 item 5: that one
    # run then vetoed the claim. The runs are the units of one part; the largest data size is named beside them as
    # context, one run among the runs (#63 item 2: it counted twice, once among the runs and once as a part).
    parts, (v, reason) = _claim("durability", planted({"finetuning": _durability(False, 1)}))
    assert [(p.outcome, p.context) for p in parts[:2]] == [("mixed", False), ("fails", True)]
    assert "flips at step 8000 and stays flipped" in parts[1].evidence and "one run, no replicate" in parts[1].evidence
    assert "durability.published.runs_judged.where(run='uf 100k').flip_step" in {r.path for r in parts[1].refs}
    assert "the largest data size keeps it" not in reason
    parts, (v, _) = _claim("durability", planted({"finetuning": _durability(True, 0)}))
    assert [p.outcome for p in parts[:2]] == ["holds", "holds"] and v == "replicates"
    parts, (v, _) = _claim("durability", planted({"finetuning": _durability(False, 2)}))
    assert parts[0].outcome == "fails" and v == "does not"


def test_the_largest_run_is_one_run_among_the_runs_not_a_part_of_its_own(planted):
    """#63 item 2: with 3 of 4 runs holding the verdict was "replicates" when any other run failed and "partly" when
    the largest did (UltraFeedback 100k on the released data). One run is one unit."""
    largest_fails = _claim("durability", planted({"finetuning": _durability(False, 1, n_runs=4)}))[1][0]
    other_fails = _claim("durability", planted({"finetuning": _durability(True, 1, n_runs=4, failing="uf 27k")}))[1][0]
    assert largest_fails == other_fails == "replicates"


def test_a_tied_largest_run_is_not_established_not_failed(planted):
    """#63 item 6: ties are 'not established' everywhere; the largest run's part said "fails" for a tie."""
    parts, _ = _claim("durability", planted({"finetuning": _durability(False, 0, largest_tied=True)}))
    assert parts[1].outcome == "not established" and "a tie, neither holding nor failing" in parts[1].evidence
    assert "flips" not in parts[1].evidence


def _heterogeneity(p: float, *, exact: bool = True, p_se: float = 0.0, p_other: float = 0.0001) -> dict:
    pm = {"design": "same base family", "given": "similar size", "r": 0.27, "p": p, "exact": exact, "p_se": p_se,
          "n_permutations": 3628800 if exact else 9999, "alternative": "two-sided", "r_design": 0.59,
          "r_given_design": 0.62, "n_models": 10}
    return {"runs": {"published": {"agreement": {"tau_median": 0.4, "tau_min": 0.1, "tau_max": 0.8},
                                   "designs": {"base_given_size": pm},
                                   "partial_mantels": [{"design": "similar size", "given": "same base family",
                                                        "r": 0.55, "p": p_other}]}}}


def test_similarity_by_base_is_judged_with_size_held_fixed(planted):
    # defect 7 of #25: "holds" read the same-base design alone; size matches better and overlaps with base
    parts, (v, reason) = _claim("heterogeneity", planted({"heterogeneity": _heterogeneity(0.0984)}))
    assert [p.outcome for p in parts] == ["holds", "not established"] and v == "partly"
    assert "exact over all 3628800 relabellings of the 10 RMs" in parts[1].evidence
    assert "as twice the smaller tail, exact over all" in " ".join(parts[1].evidence.split())
    flat = " ".join(parts[1].evidence.split())
    assert "same base family's Mantel r falls from 0.59 alone to a partial r of 0.27 with similar size held fixed" in flat
    assert "similar size given same base family keeps r = 0.55 (p = 0.0001)" in flat


def test_a_non_significant_partial_r_is_stated_not_explained_away(planted):
    """#63 item 1: "similar size accounts for the similarity that same base family seemed to explain" turned a
    partial r of 0.27 with p = 0.098, which the page's own rule calls not established, into a conclusion. The
    sentence states the numbers only (#38 item 9 had already stopped it printing "the confound" always)."""
    for p, p_other in ((0.0984, 0.0001), (0.0984, 0.4), (0.001, 0.0001)):
        parts, _ = _claim("heterogeneity", planted({"heterogeneity": _heterogeneity(p, p_other=p_other)}))
        assert "accounts for" not in parts[1].evidence and "explain" not in parts[1].evidence
        assert "confound" not in parts[1].evidence


def test_a_monte_carlo_partial_mantel_p_at_alpha_is_not_established_with_its_error_shown(planted):
    """#38 item 8: 0.0504 ± 0.0022 from 9,999 permutations decided the part; the exact p is what counts."""
    mc = planted({"heterogeneity": _heterogeneity(0.0492, exact=False, p_se=0.0022)})
    parts, _ = _claim("heterogeneity", mc)
    assert parts[1].outcome == "not established" and "0.049 ± 0.002 as twice the smaller tail (Monte Carlo SE" in parts[1].evidence
    parts, _ = _claim("heterogeneity", planted({"heterogeneity": _heterogeneity(0.0492)}))
    assert parts[1].outcome == "holds" and "p = 0.0492 as twice the smaller tail, exact" in " ".join(parts[1].evidence.split())


def _themes_by_prompt(directions: dict) -> dict:
    return {"topics": {"themes_by_prompt": [
        {"topic": t, "prompt": pr, "direction": d, "ratio": {"over": 1.6, "under": 0.6, "none": 1.0}[d],
         "p_fdr": 0.001 if d != "none" else 0.8, "p_fdr_se": 0.0005} for t, per in directions.items()
        for pr, d in per.items()]}}


def test_a_theme_whose_monte_carlo_p_straddles_alpha_is_unclear_on_that_prompt(planted):
    """#63 item 7: the themes' 9,999-resample p had no standard error and no straddle check, though the rules say
    every part gets one."""
    plan = {t: {"prefer": "over", "greatest": "over", "single": "over"}
            for t in ("nature", "life", "technology", "human sexuality")}
    results = _themes_by_prompt(plan)
    close = next(r for r in results["topics"]["themes_by_prompt"] if r["topic"] == "nature" and r["prompt"] == "prefer")
    close |= {"p_fdr": 0.048, "p_fdr_se": 0.002}
    parts, _ = _claim("misalignment_themes", planted({"elo_misalignment": results}))
    nature = next(p for p in parts if p.name == "nature")
    assert nature.outcome == "mixed" and "0.048 ± 0.002, too close to call" in nature.evidence
    assert {p.outcome for p in parts if p.name != "nature"} == {"holds"}


def test_a_theme_that_holds_on_one_prompt_and_reverses_on_another_is_reported_per_prompt(planted):
    # defect 5 of #25: the pooled test cancelled nature x1.57 on one prompt against its reverse on the others
    plan = {"nature": {"prefer": "over", "greatest": "under", "single": "none"},
            "life": {"prefer": "none", "greatest": "under", "single": "under"},
            "technology": {"prefer": "over", "greatest": "over", "single": "over"},
            "human sexuality": {"prefer": "none", "greatest": "none", "single": "none"}}
    parts, (v, reason) = _claim("misalignment_themes", planted({"elo_misalignment": _themes_by_prompt(plan)}))
    got = {p.name: p.outcome for p in parts}
    # life: under-represented on 2 of 3 prompts is short of the bar for fails, as 2 of 3 "over" is for holds (#38
    # item 6: failing needed one prompt, holding all three)
    assert got == {"nature": "mixed", "life": "mixed", "technology": "holds", "human sexuality": "not established"}
    nature = next(p for p in parts if p.name == "nature")
    assert nature.note == "over-represented on prefer; the reverse on greatest"
    assert "topics.themes_by_prompt.where(prompt='greatest', topic='nature').direction" in {r.path for r in nature.refs}
    assert v == "partly" and "over-represented on prefer; the reverse on greatest" in reason
    under = {t: {"prefer": "under", "greatest": "under", "single": "under"} for t in plan}
    parts, (v, _) = _claim("misalignment_themes", planted({"elo_misalignment": _themes_by_prompt(under)}))
    assert {p.outcome for p in parts} == {"fails"} and v == "does not"  # the mirror of holding on every prompt


def test_identity_counts_are_the_ones_adjusted_for_regression_to_the_mean(planted):
    # defect 6 of #25: gaps were tested against zero; the chapter now writes the adjusted counts as n_below/n_above
    elo = {"n_below": 0, "n_above": 0, "n_items": 31, "n_below_raw": 18, "n_above_raw": 10, "human_bins": 20}
    parts, (v, _) = _claim("identity_terms", planted({"identity_terms": {"elo": elo}}))
    assert parts[0].outcome == "not established"  # all 18 raw "lower" items were regression to the mean
    assert "tested against zero, as before, it would be 18 and 10" in parts[0].evidence
    assert {r.path for r in parts[0].refs} >= {"elo.n_below", "elo.n_below_raw", "elo.human_bins"}
    parts, _ = _claim("identity_terms", planted({"identity_terms": {"elo": {**elo, "n_below": 13}}}))
    assert parts[0].outcome == "holds" and "13 of 31" in parts[0].evidence
    assert parts[0].controlled == "" or parts[0].controlled == "holds"
    with claims.under_control():
        assert _claim("identity_terms", planted({"identity_terms": {"elo": {**elo, "n_below": 1}}}))[0][0].outcome == (
            "not established")  # one of 31 intervals below: what chance gives
    parts, _ = _claim("identity_terms", planted({"identity_terms": {"mode": "compute", "elo": None}}))
    assert parts[0].outcome == "untestable"  # a compute-mode run has no item-level numbers


def test_each_verdict_names_reproduction_or_replication(planted):
    """#63 item 9: re-analysing the authors' released scores is reproduction, new models are replication; the page
    said "replicates" for both."""
    from rmbook.analysis.claims.rules import support_of

    parts, _ = _claim("heterogeneity", planted({"heterogeneity": _heterogeneity(0.0984)}))
    assert {p.support for p in parts} == {"reproduction"} and support_of(parts) == "reproduction"
    acc = _razin(planted, _good_teachers({"random 500": "predicts"}, 54))["accuracy_not_speed"]
    assert {p.support for p in acc} == {"replication"} and support_of(acc) == "replication"
    finetuning = {"durability": {"published": {"final_claimed_holds": 4, "final_n": 5, "final_n_failed": 0,
                                               "final_largest_run": "uf 100k", "final_largest_run_holds": True,
                                               "final_largest_run_tied": False, "final_failed_runs": []},
                                 "ours": None},
                  "base_effect": {"n_prompts_significant": 0, "n_prompts": 2}, "metrics": []}
    parts, _ = _claim("ablations", planted({"finetuning": finetuning}))
    assert [p.support for p in parts] == ["reproduction", "replication"]  # the RMs trained here are context
    assert support_of(parts) == "reproduction"
    assert support_of([claims.Part("a", "untestable", "e")]) == ""
