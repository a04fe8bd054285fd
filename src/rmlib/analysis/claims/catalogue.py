"""Every claim of the two papers (and of Razin et al.'s, which the reward-model quality chapters test): the sentence
it tests, where the paper says it, the chapters and data that test it, the unit it is about, and how its parts are
judged from the chapters' numbers."""
from __future__ import annotations

import os

import pandas as pd

from rmlib.analysis.claims.evidence import Evidence, Missing
from rmlib.analysis.claims.evidence import evaluate_part as _part
from rmlib.analysis.claims.implicit_explicit import implicit_explicit_claims
from rmlib.analysis.claims.rules import (ALPHA, MULTIPLE, TAU_HETEROGENEOUS, Claim, Part, bh_floor, exists_outcome,
                                         order_outcome, share_outcome, test_outcome, threshold_outcome, verdict)
from rmlib.storage import ResultsError, read_results

__all__ = ["CLAIMS", "FACCT", "ICLR", "RAZIN", "source_chapters", "load_evidence", "claims_table"]

def _untestable(name: str, reason: str) -> Part:
    return Part(name, "untestable", reason)


def _n(x: float, spec: str = ".2f") -> str:
    return format(x, spec)


# --- FAccT 2025 ----------------------------------------------------------------------------------------------------

FACCT = "FAccT 2025"
ICLR = "ICLR 2026"
FACCT_ABSTRACT = "FAccT 2025 abstract (arXiv 2506.07326)"
ICLR_ABSTRACT = "ICLR 2026 abstract (arXiv 2601.20838)"


def _heterogeneity(e: Evidence) -> list[Part]:
    def tau():
        med = e.get("heterogeneity", "runs.published.tau_median")
        lo, hi = e.get("heterogeneity", "runs.published.tau_min"), e.get("heterogeneity", "runs.published.tau_max")
        return (threshold_outcome(med, TAU_HETEROGENEOUS),
                f"median Kendall τ between RMs' item rankings {_n(med)} (range {_n(lo)}–{_n(hi)})")

    def rsa():
        # Base family and model size overlap (the Gemma-27B RMs share both), so the base design is tested with size
        # held fixed: a partial Mantel test, model labels permuted (heterogeneity chapter).
        pm = "runs.published.partial_mantel"
        design, given = e.get("heterogeneity", f"{pm}.design"), e.get("heterogeneity", f"{pm}.given")
        r, p, r_alone, r_designs, n = e.values("heterogeneity", pm, "r", "p", "r_design", "r_given_design",
                                               "n_models")
        r_other, p_other = e.values("heterogeneity", f"{pm}s[design={given},given={design}]", "r", "p")
        return (test_outcome(p, r > 0),
                f"{design}: Mantel r = {_n(r_alone)} alone, but the design overlaps with {given} (r = "
                f"{_n(r_designs)} over model pairs); with size held fixed the partial r is {_n(r)} "
                f"(permutation p = {_n(p, '.3g')}, {n} RMs), while {given} given {design} keeps r = {_n(r_other)} "
                f"(p = {_n(p_other, '.3g')}): model size is the confound, and the base signal rests on few models")

    return [_part("RMs rank items differently", e, tau), _part("similarity follows the base model", e, rsa)]


def _asymmetry(e: Evidence) -> list[Part]:
    def skew():
        n, neg, pos = e.values("distributions", "skew_summary.published", "n", "n_negative", "n_positive")
        return (share_outcome(max(neg, pos), n, against=min(neg, pos)),
                f"skewness CI below 0 for {neg} and above 0 for {pos} of {n} RMs (EloEverything items)")

    return [_part("asymmetric score distributions (items)", e, skew),
            _untestable("full-vocabulary tokens", "the paper RMs' full-vocabulary token scores are not in the "
                        "released data; sweeping them needs the RM weights on a GPU")]


def _lexicon_outcome(outcomes: dict[str, str]) -> tuple[str, str]:
    """One part judged with several lexicons: their common outcome, or 'mixed' with a note naming the lexicons on
    which it holds and fails (a result that rests on one lexicon's scoring of a few words is lexicon-dependent)."""
    kinds = set(outcomes.values())
    if len(kinds) == 1:
        return kinds.pop(), ""
    by = {o: [s.upper() for s, v in outcomes.items() if v == o] for o in ("holds", "mixed", "not established",
                                                                          "fails")}
    return "mixed", "lexicon-dependent: " + "; ".join(f"{o} with {', '.join(ls)}" for o, ls in by.items() if ls)


def _framing(e: Evidence) -> list[Part]:
    def half(key, label):
        def fn():
            src = e.get("framing", "main_source")
            sources = list(e.get("framing", "halves_by_source"))
            counts = {o: e.values("framing", f"halves_by_source.{o}.{key}", "holds", "reversed", "n")
                      for o in sources}
            outcomes = {o: share_outcome(k, n, against=rev) for o, (k, rev, n) in counts.items()}
            outcome, note = _lexicon_outcome(outcomes)
            cells = e.get("framing", f"cell_counts_by_half[half={key}].n_congruent_steeper")
            ncells = e.get("framing", f"cell_counts_by_half[half={key}].n_cells")
            per = "; ".join(f"{o.upper()}: CI above 0 for {k} and below 0 for {rev} of {n} RMs ({outcomes[o]})"
                            for o, (k, rev, n) in counts.items())
            return (outcome, f"{label}, per affect lexicon: {per}; {cells} of {ncells} model × prompt cells in "
                    f"the claimed direction ({str(src).upper()})", {"note": note})
        return fn

    return [_part("positive prompts: more sensitive to positive words", e, half("pos_prompts", "first half")),
            _part("negative prompts: more sensitive to negative words", e, half("neg_prompts", "second half"))]


def _exposure(e: Evidence) -> list[Part]:
    def valence(pv):
        def fn():
            sources = e.get("mere_exposure", "matchings")
            rows = [(s, e.get("mere_exposure", f"by_model[source={s},prompts={pv}].n_above"),
                     e.get("mere_exposure", f"by_model[source={s},prompts={pv}].n_below"),
                     e.get("mere_exposure", f"by_model[source={s},prompts={pv}].n_models")) for s in sources]
            outcomes = {share_outcome(k, n, against=j) for _, k, j, n in rows}
            outcome = ("holds" if outcomes == {"holds"} else "fails" if outcomes == {"fails"} else "mixed")
            return (outcome, "frequency slope above zero (pooled over prompts, CI clustered by word) for " + ", ".join(
                f"{k} of {n} RMs ({s}; below zero for {j})" for s, k, j, n in rows))
        return fn

    return [_part("positive prompts, every frequency matching", e, valence("positive")),
            _part("negative prompts, every frequency matching", e, valence("negative"))]


def _identity(e: Evidence) -> list[Part]:
    def placement():
        # Items people rank high get negative gaps from any imperfect ranker (regression to the mean), so each
        # item's gap is compared with the gap expected at its human rank (identity_terms chapter).
        below, above, n = e.values("identity_terms", "elo", "n_below", "n_above", "n_items")
        below_raw, above_raw, bins = e.values("identity_terms", "elo", "n_below_raw", "n_above_raw", "human_bins")
        return (exists_outcome(below),
                f"{below} of {n} identity items sit reliably lower for the RMs than expected at their human rank "
                f"(the gap minus the mean gap of all items in its human-percentile bin, one of {bins}; interval over "
                f"RMs below 0), {above} reliably higher; tested against zero, as before, it would be {below_raw} and "
                f"{above_raw}")

    return [_part("some identity terms placed below human ratings", e, placement),
            _untestable("caused by harmlessness training", "needs the RMs' training data or an ablation of "
                        "harmlessness data, which this book does not have")]


def _themes(e: Evidence) -> list[Part]:
    # Per prompt: the "humans most prefer" prompt and the two "greatest" prompts undervalue different themes, and a
    # pooled test averages opposite effects away (the framing chapter's lesson). A theme holds where it is
    # over-represented among the most undervalued items on every prompt, fails where it is only ever
    # under-represented, is not established where no prompt shows it, and is mixed otherwise, naming the prompts.
    def theme(t):
        def fn():
            prompts = sorted({r["prompt"] for r in e.get("elo_misalignment", "topics.themes_by_prompt")})
            rows = [(pr, *e.values("elo_misalignment", f"topics.themes_by_prompt[topic={t},prompt={pr}]",
                                   "direction", "ratio", "p_fdr")) for pr in prompts]
            over = [pr for pr, d, *_ in rows if d == "over"]
            under = [pr for pr, d, *_ in rows if d == "under"]
            if over and len(over) == len(rows):
                outcome, note = "holds", ""
            elif not over:
                outcome, note = ("fails" if under else "not established"), ""
            else:
                outcome = "mixed"
                note = f"over-represented on {', '.join(over)}" + (f"; the reverse on {', '.join(under)}"
                                                                  if under else "")
            word = {"over": "over-represented", "under": "under-represented", "none": "not different"}
            return (outcome, "per prompt, among each prompt's most undervalued items (FDR over themes × prompts): "
                    + "; ".join(f"{pr}: {word.get(d, d)} (ratio {_n(ratio)}, FDR p = {_n(p, '.3g')})"
                                for pr, d, ratio, p in rows), {"note": note})
        return fn

    return [_part(t, e, theme(t)) for t in ("nature", "life", "technology", "human sexuality")]


def _love_freedom(e: Evidence) -> list[Part]:
    def model(nick, first, second):
        def fn():
            r1 = e.get("big_two", f"love_freedom[nickname={nick},word={first}].rank")
            r2 = e.get("big_two", f"love_freedom[nickname={nick},word={second}].rank")
            n = e.get("big_two", f"love_freedom[nickname={nick},word={first}].n_words")
            return order_outcome(r1, r2), f"{nick}: '{first}' rank {r1:.0f}, '{second}' rank {r2:.0f} of {n} words"
        return fn

    return [_part("R-Gem-2B puts love above freedom", e, model("R-Gem-2B", "love", "freedom")),
            _part("R-Lla-3B puts freedom above love", e, model("R-Lla-3B", "freedom", "love"))]


# The claimed sign of each Big Two panel's Gemma − Llama median-rank difference (a lower rank = ranked higher). Llama
# RMs prefer agency: under positive prompts they rank it higher (difference > 0); under negative prompts ("the worst
# thing") a preferred category is ranked *lower* as the worst answer, so the sign turns round. Communion mirrors it.
BIG_TWO_SIGNS = {("Agency", "positive"): +1, ("Agency", "negative"): -1,
                 ("Communion", "positive"): -1, ("Communion", "negative"): +1}


def _floor_text(e: Evidence, chapter: str, summary: str, k: int = 1) -> tuple[float, str]:
    """The smallest FDR-adjusted p a panel can reach with this many models and panels (``k`` panels at the floor),
    and a sentence that says so."""
    raw, m = e.values(chapter, summary, "min_attainable_p", "n_panels")
    n = [e.derive(f"models in {fam}", v) for fam, v in e.get(chapter, f"{summary}.models_per_family").items()]
    floor = e.derive(f"smallest FDR-adjusted p with {k} panel(s) at the floor", bh_floor(raw, m, k))
    at = "one panel sits" if k == 1 else f"{k} panels sit"
    return floor, (f"with {' vs '.join(str(v) for v in n)} models an exact test gives p ≥ {_n(raw, '.2g')}, "
                   f"and after FDR over {m} panels ≥ {_n(floor, '.2g')} when {at} at that floor")


def _big_two(e: Evidence) -> list[Part]:
    def category(cat):
        def fn():
            rows = []
            for val in ("positive", "negative"):
                path = f"results.published.panels[category={cat},valence={val}]"
                diff, p = e.get("big_two", f"{path}.difference"), e.get("big_two", f"{path}.p_fdr")
                rows.append((val, diff, p, diff * BIG_TWO_SIGNS[(cat, val)] > 0))
            k = sum(right and p < ALPHA for _, _, p, right in rows)
            against = sum((not right) and p < ALPHA for _, _, p, right in rows)
            floor, floor_text = _floor_text(e, "big_two", "results.published")
            lean = ("both panels point" if all(r[-1] for r in rows) else "neither panel points"
                    if not any(r[-1] for r in rows) else "one of the two panels points")
            return (share_outcome(k, len(rows), against),
                    f"{lean} the claimed way: " + "; ".join(
                        f"{val} prompts: Gemma − Llama median rank {_n(diff, '+.1f')} (claimed: "
                        f"{'positive' if BIG_TWO_SIGNS[(cat, val)] > 0 else 'negative'}), FDR p = {_n(p, '.3g')}"
                        for val, diff, p, _ in rows) + f"; {floor_text}", {"floor": floor})
        return fn

    return [_part("Llama RMs rank agency higher (positive prompts; lower under negative ones)", e,
                  category("Agency")),
            _part("Gemma RMs rank communion higher (positive prompts; lower under negative ones)", e,
                  category("Communion"))]


def _foundation_directions(e: Evidence, panels: list[dict]) -> tuple[int, str]:
    """How many foundations' family differences turn round from positive to negative prompts (a difference in
    what the RMs value should: the favoured foundation is ranked lower as 'the worst thing'), and who ranks
    which foundation higher under positive prompts."""
    by = {(r["foundation"], r["valence"]): r["difference"] for r in panels}
    found = sorted({f for f, _ in by})
    mirrored = [f for f in found if by[(f, "positive")] * by[(f, "negative")] < 0]
    gemma = [f for f in found if by[(f, "positive")] < 0]
    llama = [f for f in found if by[(f, "positive")] > 0]
    return len(mirrored), (f"under positive prompts Gemma-based RMs rank {', '.join(gemma) or 'none'} higher and "
                           f"Llama-based RMs {', '.join(llama) or 'none'}; the difference turns round under "
                           f"negative prompts for {e.derive('foundations that turn round', len(mirrored))} of "
                           f"{e.derive('foundations', len(found))} foundations "
                           f"({', '.join(mirrored) or 'none'})")


def _mfd2(e: Evidence) -> list[Part]:
    # "Differ along several foundations" names no direction per foundation, so failing to find a difference is
    # not evidence of none: short of MULTIPLE significant panels the part is not established, never fails.
    def pooled():
        k = e.get("moral_foundations", "by_foundation.n_significant_fdr")
        n = e.get("moral_foundations", "by_foundation.n_panels")
        raw = e.get("moral_foundations", "by_foundation.n_significant_raw")
        floor, floor_text = _floor_text(e, "moral_foundations", "by_foundation", k=MULTIPLE)
        _, directions = _foundation_directions(e, e.get("moral_foundations", "by_foundation.panels"))
        return ("holds" if k >= MULTIPLE else "not established",
                f"{k} of {n} foundation × valence panels (virtue and vice pooled, as the authors test it) differ "
                f"between Gemma- and Llama-based RMs after FDR ({raw} before); {directions}; {floor_text}",
                {"floor": floor})

    def split():
        k = e.get("moral_foundations", "results.published.n_significant_fdr")
        n = e.get("moral_foundations", "results.published.n_panels")
        floor, floor_text = _floor_text(e, "moral_foundations", "results.published", k=MULTIPLE)
        return ("holds" if k >= MULTIPLE else "not established",
                f"{k} of {n} foundation × virtue/vice × valence panels differ after FDR; {floor_text}",
                {"floor": floor})

    return [_part("several foundations differ by base family", e, pooled),
            _part("the same with virtue and vice apart", e, split, context=True)]


def _three_way(e: Evidence) -> list[Part]:
    def models():
        d, p, floor, sign, na, nb = e.values("big_two", "three_way_models", "difference", "p", "min_attainable_p",
                                             "claimed_sign", "n_a", "n_b")
        return (test_outcome(p, d * sign > 0, floor),
                f"per-model interaction contrast, (Agency − Communion median rank) under positive minus under "
                f"negative prompts, Gemma − Llama: {_n(d, '+.1f')} rank points (claimed: positive), exact permutation "
                f"p = {_n(p, '.3g')} over {na} vs {nb} models (smallest attainable p {_n(floor, '.2g')})",
                {"floor": floor})

    def mixed():
        term = e.get("big_two", "three_way.term")
        est = e.get("big_two", "three_way.estimate")
        p = e.get("big_two", "three_way.p")
        # With treatment coding (Gemma, Agency, negative as references) the term's estimate is the model-level
        # contrast above with its sign: positive is the claimed direction.
        return (test_outcome(p, est > 0),
                f"mixed model (random intercept per RM), {term.replace('*', '×')}: {_n(est, '+.1f')} rank points, "
                f"p = {_n(p, '.3g')}; it counts every prompt as an independent replicate, as in the authors' "
                "model, so its p is far too small for a claim about models")
    return [_part("family × category × valence (Big Two), models as the replicates", e, models),
            _part("the authors' mixed model, prompts as replicates", e, mixed, context=True)]


def _implicit(e: Evidence) -> list[Part]:
    def fn():
        path = "mwlr_gemma_llama"
        model = e.get("implicit_rewards", f"{path}.model")
        g = e.get("implicit_rewards", f"{path}.hedges_g")
        p = e.get("implicit_rewards", f"{path}.p_fdr")
        return (test_outcome(p, g > 0),
                f"{model}, positive prompts: Hedges' g (Agency − Communion mean rank) {_n(g, '+.2f')}, FDR p = "
                f"{_n(p, '.3g')}")
    return [_untestable("the paper's LMs (Gemma-2, Llama-3)", "needs their log-probs (about 2 GB on a model hub) "
                        "or the models on a GPU"),
            _part("same method on the embedded LMs (Gemma-3 vs SmolLM2, a Llama-architecture model)", e, fn,
                  context=True)]


def _trained_power(e: Evidence) -> str:
    """Why the RMs trained here are context, not evidence: their held-out accuracy at the final checkpoints and the
    number of runs (tiny RMs on a few hundred pairs, trained on 2 CPU cores, are weak teachers of any claim)."""
    metrics = pd.DataFrame(e.get("finetuning", "metrics"))
    final = metrics.sort_values("step").groupby("run").tail(1)
    lo = e.derive("lowest final held-out accuracy", float(final["accuracy"].min()))
    hi = e.derive("highest final held-out accuracy", float(final["accuracy"].max()))
    return (f"context, not counted: these RMs reach held-out accuracy {_n(lo)}–{_n(hi)} at their final checkpoints "
            f"({e.derive('trained runs', len(final))} runs), too little power for a "
            "non-result to count against the claim")


def _runs_outcome(n_held: int, n: int, n_failed: int, largest_holds: bool) -> str:
    """Durability judged run by run: 'fails' when the largest data size fails (the case the claim is about, 'as
    data grow'), 'mixed' when any other run fails, else the share rule over runs."""
    if not largest_holds:
        return "fails"
    return "mixed" if n_failed else share_outcome(n_held, n)


def _ablation(e: Evidence) -> list[Part]:
    def published():
        d = "durability.published"
        n_failed, largest, largest_holds = e.values("finetuning", d, "final_n_failed", "final_largest_run",
                                                    "final_largest_run_holds")
        k, n = e.values("finetuning", d, "final_claimed_holds", "final_n")
        failed = e.get("finetuning", f"{d}.final_failed_runs")
        return (_runs_outcome(k, n, n_failed, largest_holds),
                f"Llama's Agency − Communion gap below Gemma's at the final checkpoint in {k} of {n} published runs "
                f"(data sources and sizes); " + (f"not in {', '.join(failed)}" if failed else "every run keeps it")
                + f"; the largest data size, {largest}, " + ("keeps it" if largest_holds else "does not"))

    def ours():
        k, n = e.values("finetuning", "base_effect", "n_prompts_significant", "n_prompts")
        return (share_outcome(k, n),
                f"our RMs on identical data: the base explains the gap (one-way ANOVA over seeds, p < {ALPHA}) under "
                f"{k} of {n} prompts; {_trained_power(e)}")

    return [_part("published runs, identical data per run", e, published),
            _part("RMs trained here", e, ours, context=True)]


def _durability(e: Evidence) -> list[Part]:
    def published():
        d = "durability.published"
        held, n, n_failed = e.values("finetuning", d, "n_runs_held", "n_runs_judged", "n_runs_failed")
        largest, largest_holds = e.values("finetuning", d, "largest_run", "largest_run_holds")
        flip = e.get("finetuning", f"{d}.runs_judged[run={largest}].flip_step") if not largest_holds else None
        k, m = e.values("finetuning", d, "checkpoints_claimed_holds", "checkpoints_n")
        return (_runs_outcome(held, n, n_failed, largest_holds),
                f"judged run by run (a run fails when its base families are in the other order at its final "
                f"checkpoint): {held} of {n} published runs with several checkpoints keep Llama below Gemma; the "
                f"largest data size, {largest}, "
                + (f"flips at step {flip} and stays flipped to its final checkpoint" if not largest_holds else
                   "keeps it") + f" (pooled over runs, {k} of {m} checkpoints, a count in which long runs that hold "
                "outvote one that ends flipped)")

    def seeds():
        exists, n, w = e.values("finetuning", "durability.ours", "modal_order_exists", "n_seeds", "kendall_w")
        if not exists:
            n_orders = e.get("finetuning", "durability.ours.n_distinct_orders")
            return ("not established", f"our RMs: the {n} seeds give {n_orders} different orders of the bases, so "
                    f"there is no most common order (Kendall's W = {_n(w)}); {_trained_power(e)}")
        k = e.get("finetuning", "durability.ours.n_seeds_modal_order")
        return (share_outcome(k, n),
                f"our RMs: {k} of {n} seeds give the most common order of the bases (Kendall's W = {_n(w)}); "
                f"{_trained_power(e)}")

    return [_part("published runs keep the order as data grow", e, published),
            _part("our RMs keep one order across seeds", e, seeds, context=True)]


# --- Razin et al. 2025 (the good_teachers chapter) ------------------------------------------------------------------

RAZIN, TEACHING, _RUN = "Razin et al. 2025", "good_teachers", "replication.published"
RAZIN_PAPER = "Razin et al. 2025, What Makes a Reward Model a Good Teacher? An Optimization Perspective"


def _teaching(e: Evidence, name: str, fn, context: bool = False) -> Part:
    """A good_teachers part, or 'not computed in this run' (no results, or no published-mode setting)."""
    res = e.results.get(TEACHING)
    if res is None or "published" not in (res.get("replication") or {}):
        why = e.reasons.get(TEACHING, "no results file") if res is None else "the published setting did not run"
        return Part(name, "untestable", f"not computed in this run ({why})", [], context)
    return _part(name, e, fn, context)


def _accuracy_speed(e: Evidence) -> list[Part]:
    def pairs():
        k, m, margin = e.values(TEACHING, _RUN, "n_slower_more_accurate", "n_slower_more_accurate_margin",
                                "accuracy_margin")
        return (exists_outcome(m), f"in {k} pairs of published RMs under one π_0 the RM more accurate over uniform "
                f"pairs gains less E[r*] (human Elo) after the same number of policy-gradient steps; in {m} of them "
                f"its accuracy lead exceeds {_n(margin)} (about two standard errors), which the rule requires")

    def mechanism():
        rows = e.get(TEACHING, f"{_RUN}.variance_explains")
        for r in rows:  # recorded, so the page's numbers trace back
            e.get(TEACHING, f"{_RUN}.variance_explains[pi0={r['pi0']}].n_lower_variance")
        k = e.get(TEACHING, f"{_RUN}.n_slower_lower_variance")
        n = e.get(TEACHING, f"{_RUN}.n_slower_more_accurate")
        return (share_outcome(k, n), f"the slower RM also has the clearly lower variance under π_0 in {k} of {n} "
                "inversions: " + "; ".join(f"{r['n_lower_variance']} of {r['n_inversions']} under {r['pi0']}"
                                           for r in rows) + " (under a uniform π_0 every variance is 1)")

    def planted():
        a, n = (e.get(TEACHING, f"planted[model={m}].gain_T") for m in ("accurate", "noisy"))
        return (order_outcome(a, n), f"planted case: a perfectly accurate RM that is flat on π_0 gains {_n(a, '.3f')}, "
                f"a noisy, less accurate one {_n(n, '.3f')}")

    return [_teaching(e, "more accurate yet slower RM pairs exist", pairs),
            _teaching(e, "the theory's planted case", planted, context=True),
            _teaching(e, "low variance under π_0 explains the inversions", mechanism, context=True)]


def _variance_speed(e: Evidence) -> list[Part]:
    def fn():
        yes = e.get(TEACHING, f"{_RUN}.variance_predicts_under")
        no = e.get(TEACHING, f"{_RUN}.variance_does_not_predict_under")
        rows = [e.values(TEACHING, f"correlations.published[predictor=variance_pi0,outcome=gain_T,stratum={s}]",
                         "rho", "ci_low", "ci_high", "verdict") + (s,) for s in yes + no]
        against, size = sum(r[3] == "predicts the opposite" for r in rows), e.get(TEACHING, "parameters.subset_size")
        return (share_outcome(len(yes), len(rows), against), f"Spearman ρ (variance under π_0, gain) across the RMs, "
                f"bootstrap over RMs (a concentrated π_0 holds {size} items): " + "; ".join(
                    f"{s}: {_n(r, '+.2f')} [{_n(lo, '+.2f')}, {_n(hi, '+.2f')}] ({v})" for r, lo, hi, v, s in rows))

    return [_teaching(e, "variance under each non-uniform π_0 predicts teaching speed", fn)]


CLAIMS: list[Claim] = [
    Claim("heterogeneity", FACCT, "Reward models trained for similar objectives rank the same answers very "
          "differently, and how alike two RMs are follows their base model.",
          FACCT_ABSTRACT + " (i); the base-model influence: the paper's heterogeneity section",
          ("heterogeneity",), "published scores of the 10 RMs for 7,530 EloEverything items", "pairs of RMs",
          f"median pairwise Kendall τ below {TAU_HETEROGENEOUS}; Mantel test of τ against a same-base design",
          _heterogeneity),
    Claim("asymmetry", FACCT, "RMs encode high- and low-scoring answers asymmetrically.", FACCT_ABSTRACT + " (ii)",
          ("distributions",), "published EloEverything scores (items, not single tokens)", "RMs",
          "skewness with a bootstrap CI, same sign in most RMs", _asymmetry),
    Claim("framing", FACCT, "Under positive prompts RMs are more sensitive to positive words; under negative "
          "prompts, to negative words.", FACCT_ABSTRACT + " (iii) and the authors' announcement",
          ("framing",), "published scores of dictionary words under 54 prompts (word level; the paper used "
          "tokens)", "RMs", "per model, each half's contrast of oriented valence slopes with a word-clustered CI",
          _framing),
    Claim("mere_exposure", FACCT, "RMs over-value frequent words: scores rise with word frequency in almost all "
          "models and prompts.", FACCT_ABSTRACT + " (iv)", ("mere_exposure",),
          "published dictionary-word scores; frequency by exact BNC form, BNC lemma totals and wordfreq", "RMs",
          "per RM and prompt valence, the frequency slope pooled over prompts (valence held fixed) with a "
          "word-clustered CI; each frequency matching", _exposure),
    Claim("identity_terms", FACCT, "RMs can encode biases toward identity groups, possibly as a side effect of "
          "harmlessness training.", FACCT_ABSTRACT, ("identity_terms",),
          "published EloEverything scores of identity items vs human Elo", "identity items",
          "RM percentile − human percentile, minus the gap expected at the item's human rank, bootstrap interval "
          "over RMs", _identity),
    Claim("misalignment_themes", FACCT, "Compared with human ratings, RMs undervalue concepts related to nature, "
          "life, technology and human sexuality.", "FAccT 2025, EloEverything section", ("elo_misalignment",),
          "published EloEverything scores of 10 RMs vs human Elo; WordNet topics", "items",
          "per prompt, permutation test over items (within human-rank bins) of each theme among the 10% most "
          "undervalued, FDR across themes × prompts", _themes),
    Claim("love_freedom", FACCT, "RMs from one developer and one data set differ at the top: R-Gem-2B's best "
          "answer to 'the greatest thing ever' is LOVE, R-Lla-3B's is freedom.",
          "FAccT 2025, optimal tokens (figure 1); the ICLR paper's figure 3 contrasts the same two words",
          ("big_two",), "published scores of the Big Two nouns under 'What, in one word, is the greatest thing "
          "ever?' (whole words, not the single tokens of the paper)", "the two named RMs",
          "rank of each word among the dictionary words", _love_freedom),
    Claim("big_two", ICLR, "Llama-based RMs prefer agency words, Gemma-based RMs communion words.",
          ICLR_ABSTRACT, ("big_two",), "published scores of the 10 RMs for the Big Two nouns, 54 prompts",
          "RMs (4 Gemma vs 6 Llama)", "permutation Welch test per category × valence panel, models as replicates, "
          "FDR across panels (the authors: Bonferroni)", _big_two),
    Claim("mfd2", ICLR, "RMs differ by base model along several moral foundations.", ICLR_ABSTRACT
          + " ('multiple dimensions of human value')", ("moral_foundations",),
          "published scores of the 10 RMs for the MFD2 terms, 54 prompts", "RMs",
          f"permutation tests per foundation × valence panel (virtue and vice pooled, as the authors do), models as "
          f"replicates, FDR; holds with at least {MULTIPLE}", _mfd2),
    Claim("three_way", ICLR, "The family difference depends on the category and on the prompt's valence (a "
          "family × category × valence interaction).", "ICLR 2026 main text; the authors' "
          "figures/generate_figure_1_and_A1.R fits lme(median rank ~ base_model*Category*prompt_framing, "
          "random = ~1|model_id)", ("big_two",), "published Big Two median ranks per RM × prompt × category",
          "RMs (4 Gemma vs 6 Llama), one interaction contrast per model",
          "exact permutation Welch test between the families of each model's (Agency − Communion median rank) "
          "under positive minus under negative prompts; the authors' mixed model, which counts prompts as "
          "replicates, is shown as context", _three_way),
    Claim("implicit_rewards", ICLR, "Log-probability differences between instruction-tuned and pretrained LMs "
          "form implicit RMs that show the same agency/communion difference.", ICLR_ABSTRACT,
          ("implicit_rewards",), "embedded LMs only (the paper's LMs are not available here)", "words",
          "permutation Welch test of Agency vs Communion ranks under each implicit reward, FDR", _implicit),
    Claim("ablations", ICLR, "The base-model difference holds when the preference data and fine-tuning are "
          "identical.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files (rank_results_*.csv) and RMs trained here from the embedded bases",
          "training runs", "order of the families' gaps at the final checkpoint; one-way ANOVA of the gap on the "
          "base across seeds", _ablation),
    Claim("durability", ICLR, "The effect is repeatable and durable: as training and preference data grow, RMs "
          "keep their base family's ordering.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files; RMs trained here (seeds)", "checkpoints; seeds",
          "the claimed order (Llama below Gemma) at each checkpoint; pairwise flips; Kendall's W across seeds",
          _durability),
    Claim("accuracy_not_speed", RAZIN, "Accuracy alone does not determine how fast a reward model teaches: a more "
          "accurate RM can be a worse teacher.", RAZIN_PAPER, (TEACHING,),
          "published EloEverything scores of the 10 RMs with human Elo as the ground truth; exact policy-gradient "
          "dynamics", "pairs of RMs under one π_0", "existence of a pair where the more accurate RM gains less "
          "E[r*] after the chapter's GAIN_STEPS steps", _accuracy_speed),
    Claim("low_variance_slow", RAZIN, "An RM that gives the policy's own responses low reward variance teaches "
          "slowly, however accurate: variance under the initial policy predicts teaching speed.", RAZIN_PAPER,
          (TEACHING,), "as above, under each non-uniform π_0 (under a uniform one every standardised RM has "
          "variance 1)", "RMs", "Spearman ρ across RMs with a bootstrap over RMs, per π_0; share rule over the "
          "π_0", _variance_speed),
    *implicit_explicit_claims(RAZIN),
]


def source_chapters() -> list[str]:
    """Every chapter whose results the claims page reads, in book order of first use."""
    return list(dict.fromkeys(c for claim in CLAIMS for c in claim.chapters))


def load_evidence(results_dir: str | os.PathLike) -> Evidence:
    """Read every source chapter's results from ``results_dir`` (a missing chapter becomes a reason, not an
    error, so the page still shows what can be shown)."""
    results, reasons = {}, {}
    for name in source_chapters():
        try:
            results[name] = read_results(name, results_dir)
        except ResultsError as err:
            results[name], reasons[name] = None, str(err)
    return Evidence(results, reasons)


def claims_table(evidence: Evidence) -> tuple[pd.DataFrame, dict[str, list[Part]]]:
    """One row per claim (paper, claim, stated_in, chapters, data, unit, test, evidence, verdict, reason, and
    attainable_p: the smallest p that the tests behind the counted parts could give at this number of units, None
    when no part rests on such a test) and the parts of each claim, with the references of every number used."""
    rows, parts = [], {}
    for c in CLAIMS:
        ps = c.evaluate(evidence)
        v, why = verdict(ps)
        parts[c.key] = ps
        floors = [p.floor for p in ps if p.floor is not None and not p.context and p.outcome != "untestable"]
        rows.append({"key": c.key, "paper": c.paper, "claim": c.claim, "stated_in": c.stated_in,
                     "chapter": ", ".join(c.chapters), "data": c.data, "unit": c.unit, "test": c.test,
                     "evidence": "; ".join(f"{p.name}: {p.evidence} [{p.outcome}{', context' if p.context else ''}]"
                                           for p in ps),
                     "verdict": v, "reason": why, "attainable_p": min(floors) if floors else None})
    return pd.DataFrame(rows), parts
