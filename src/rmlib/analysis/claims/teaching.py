"""How the claims of Razin et al. 2025 on good teachers are judged from the good_teachers chapter's numbers."""
from __future__ import annotations

from rmlib.analysis.claims.evidence import Evidence, fmt
from rmlib.analysis.claims.evidence import evaluate_part as _part
from rmlib.analysis.claims.rules import Part, exists_outcome, order_outcome, share_outcome

__all__ = ["RAZIN", "TEACHING", "RAZIN_PAPER", "accuracy_speed", "variance_speed"]


RAZIN, TEACHING, _RUN = "Razin et al. 2025", "good_teachers", "replication.published"
RAZIN_PAPER = "Razin et al. 2025, What Makes a Reward Model a Good Teacher? An Optimization Perspective"


def _teaching(e: Evidence, name: str, fn, context: bool = False) -> Part:
    """A good_teachers part, or 'not computed in this run' (no results, or no published-mode setting)."""
    res = e.results.get(TEACHING)
    if res is None or "published" not in (res.get("replication") or {}):
        why = e.reasons.get(TEACHING, "no results file") if res is None else "the published setting did not run"
        return Part(name, "untestable", f"not computed in this run ({why})", [], context)
    return _part(name, e, fn, context)


def accuracy_speed(e: Evidence) -> list[Part]:
    def pairs():
        k, m, margin = e.values(TEACHING, _RUN, "n_slower_more_accurate", "n_slower_more_accurate_margin",
                                "accuracy_margin")
        return (exists_outcome(m), f"in {k} pairs of published RMs under one π_0 the RM more accurate over uniform "
                f"pairs gains less E[r*] (human Elo) after the same number of policy-gradient steps; in {m} of them "
                f"its accuracy lead exceeds {fmt(margin)} (about two standard errors), which the rule requires")

    def mechanism():
        rows = e.get(TEACHING, f"{_RUN}.variance_explains")
        for r in rows:  # recorded, so the page's numbers trace back
            e.values(TEACHING, f"{_RUN}.variance_explains[pi0={r['pi0']}]", "n_lower_variance", "n_inversions")
        k = e.get(TEACHING, f"{_RUN}.n_slower_lower_variance")
        n = e.get(TEACHING, f"{_RUN}.n_slower_more_accurate")
        e.get(TEACHING, "parameters.subset_size")  # the π_0 names carry it ("top 500 of ...")
        return (share_outcome(k, n), f"the slower RM also has the clearly lower variance under π_0 in {k} of {n} "
                "inversions: " + "; ".join(f"{r['n_lower_variance']} of {r['n_inversions']} under {r['pi0']}"
                                           for r in rows) + " (under a uniform π_0 every variance is 1)")

    def planted():
        a, n = (e.get(TEACHING, f"planted[model={m}].gain_T") for m in ("accurate", "noisy"))
        return (order_outcome(a, n), f"planted case: a perfectly accurate RM that is flat on π_0 gains {fmt(a, '.3f')}, "
                f"a noisy, less accurate one {fmt(n, '.3f')}")

    return [_teaching(e, "more accurate yet slower RM pairs exist", pairs),
            _teaching(e, "the theory's planted case", planted, context=True),
            _teaching(e, "low variance under π_0 explains the inversions", mechanism, context=True)]


def variance_speed(e: Evidence) -> list[Part]:
    def fn():
        yes = e.get(TEACHING, f"{_RUN}.variance_predicts_under")
        no = e.get(TEACHING, f"{_RUN}.variance_does_not_predict_under")
        rows = [e.values(TEACHING, f"correlations.published[predictor=variance_pi0,outcome=gain_T,stratum={s}]",
                         "rho", "ci_low", "ci_high", "verdict") + (s,) for s in yes + no]
        against, size = sum(r[3] == "predicts the opposite" for r in rows), e.get(TEACHING, "parameters.subset_size")
        return (share_outcome(len(yes), len(rows), against), f"Spearman ρ (variance under π_0, gain) across the RMs, "
                f"bootstrap over RMs (a concentrated π_0 holds {size} items): " + "; ".join(
                    f"{s}: {fmt(r, '+.2f')} [{fmt(lo, '+.2f')}, {fmt(hi, '+.2f')}] ({v})" for r, lo, hi, v, s in rows))

    return [_teaching(e, "variance under each non-uniform π_0 predicts teaching speed", fn)]
