"""The claims the good_teachers chapter's results test (Razin et al. 2025 on good teachers: accuracy alone does not
make an RM teach fast): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the
chapter's numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are
the macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the
chapter's "In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (EXISTENCE, Claim, Evidence, Missing, Part, evaluate_part as _part, exists_outcome,
                                    order_outcome, sentences, share_outcome, RAZIN)

__all__ = ["CLAIMS"]

said = sentences("good_teachers")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


TEACHING = "good_teachers"
RAZIN_PAPER = "Razin et al. 2025, What Makes a Reward Model a Good Teacher? An Optimization Perspective"


def _teaching(e: Evidence, name: str, fn, context: bool = False, one_sided: str = "") -> Part:
    """A good_teachers part, or 'not computed in this run' (no results, or no published-mode setting)."""
    try:
        ran = e.of(TEACHING).replication.keys()
    except Missing as err:  # no results file
        return Part(name, "untestable", f"not computed in this run ({err})", [], context, one_sided=one_sided,
                    support="replication")
    if "published" not in ran:
        return Part(name, "untestable", "not computed in this run (the published setting did not run)", [], context,
                    one_sided=one_sided, support="replication")
    # Razin et al.'s claims tested on other RMs than theirs (the FAccT paper's ten): a replication
    return _part(name, e, fn, context, one_sided=one_sided, support="replication")


def _published(e: Evidence):
    """The replication block of the published setting (:class:`rmbook.chapters.good_teachers.results.Replication`)."""
    return e.of(TEACHING).replication["published"]


def accuracy_speed(e: Evidence) -> list[Part]:
    def pairs():
        rep = _published(e)
        k, m, margin = rep.n_slower_more_accurate, rep.n_slower_more_accurate_margin, rep.accuracy_margin
        return exists_outcome(m), said("teaching_pairs", n_pairs=k, n_beyond_margin=m, margin=margin)

    def mechanism():
        rep = _published(e)
        rows = [(r.pi0, r.n_lower_variance, r.n_higher_variance, r.n_inversions) for r in rep.variance_explains]
        k, n, against = rep.n_slower_lower_variance, rep.n_slower_more_accurate, rep.n_slower_higher_variance
        e.of(TEACHING).parameters.subset_size  # recorded: the π_0 names carry it ("top 500 of ...")
        # an inversion under a uniform π_0, where every standardised RM has variance 1, is unclear, not against
        return share_outcome(k, n, against=against), said(
            "teaching_mechanism", n_lower_variance=k, n_higher_variance=against, n_inversions=n,
            per_pi0=[{"pi0": pi0, "n_lower_variance": low, "n_higher_variance": high, "n_inversions": inv}
                     for pi0, low, high, inv in rows])

    def planted():
        a, n = (e.of(TEACHING).planted.where(model=m).gain_T for m in ("accurate", "noisy"))
        return order_outcome(a, n), said("teaching_planted", gain_accurate=a, gain_noisy=n)

    return [_teaching(e, "more accurate yet slower RM pairs exist", pairs, one_sided=EXISTENCE),
            _teaching(e, "the theory's planted case", planted, context=True),
            _teaching(e, "low variance under π_0 explains the inversions", mechanism, context=True)]


def variance_speed(e: Evidence) -> list[Part]:
    def fn():
        rep = _published(e)
        yes, no = rep.variance_predicts_under, rep.variance_does_not_predict_under
        cor = e.of(TEACHING).correlations["published"]
        rows = [(c.rho, c.ci_low, c.ci_high, c.verdict, s)
                for s in yes + no for c in [cor.where(predictor="variance_pi0", outcome="gain_T", stratum=s)]]
        against, size = sum(r[3] == "predicts the opposite" for r in rows), e.of(TEACHING).parameters.subset_size
        return (share_outcome(len(yes), len(rows), against=against),
                said("teaching_variance", subset_size=size, per_pi0=[
                    {"pi0": s, "rho": r, "ci_low": lo, "ci_high": hi, "verdict": v} for r, lo, hi, v, s in rows]))

    return [_teaching(e, "variance under each non-uniform π_0 predicts teaching speed", fn)]


CLAIMS: list[Claim] = [
    Claim("accuracy_not_speed", RAZIN, "Accuracy alone does not determine how fast a reward model teaches: a more "
          "accurate RM can be a worse teacher.", RAZIN_PAPER, (TEACHING,),
          "published EloEverything scores of the 10 RMs with human Elo as the ground truth; exact policy-gradient "
          "dynamics", "pairs of RMs under one π_0", "existence of a pair where the more accurate RM gains less "
          "E[r*] after the chapter's GAIN_STEPS steps", accuracy_speed, place=1),
    Claim("low_variance_slow", RAZIN, "An RM that gives the policy's own responses low reward variance teaches "
          "slowly, however accurate: variance under the initial policy predicts teaching speed.", RAZIN_PAPER,
          (TEACHING,), "as above, under each non-uniform π_0 (under a uniform one every standardised RM has "
          "variance 1)", "RMs", "Spearman ρ across RMs with a bootstrap over RMs, per π_0; share rule over the "
          "π_0", variance_speed, place=2),
]
