"""The claims of Razin et al. on implicit and explicit reward models, judged from the implicit_vs_explicit chapter.

Two papers: *Why is Your Language Model a Poor Implicit Reward Model?* (the IM-RM generalises worse under token-level
shifts and in distribution, comparably or better under domain shifts) and *Unintentional Unalignment: Likelihood
Displacement in DPO* (DPO can make the preferred response less likely while the margin grows). The chapter trains one
EX-RM and one IM-RM from one base on identical pairs, so each interval here is over pairs: a verdict is about these two
RMs, which the claims' unit says; a statement about kinds of RMs needs more bases and seeds.
"""
from __future__ import annotations

from rmlib.analysis.claims.evidence import Evidence
from rmlib.analysis.claims.evidence import evaluate_part as _part
from rmlib.analysis.claims.rules import Claim, Part, exists_outcome, share_outcome

__all__ = ["IVE", "POOR_IMPLICIT", "DISPLACEMENT", "implicit_explicit_claims"]

IVE = "implicit_vs_explicit"
POOR_IMPLICIT = ("Razin, Lin, Yao & Arora 2025, Why is Your Language Model a Poor Implicit Reward Model? "
                 "(arXiv 2507.07981), abstract")
DISPLACEMENT = ("Razin, Malladi, Bhaskar, Chen, Arora & Hu, ICLR 2025, Unintentional Unalignment: Likelihood "
                "Displacement in Direct Preference Optimization")
_DATA = ("one EX-RM (Bradley–Terry) and one IM-RM (DPO) trained here from one embedded base on identical pairs, "
         "order and steps; held-out pairs, their meaning-preserving rewrites, and other preference sources")
_UNIT = "pairs, for one IM-RM and one EX-RM"


def _f(x: float) -> str:
    return format(x, "+.3f")


def _interval(e: Evidence, eval_set: str) -> tuple[float, float, float, int]:
    return e.values(IVE, f"gaps[eval_set={eval_set}]", "gap", "ci_low", "ci_high", "n")


def _token_shift(e: Evidence) -> list[Part]:
    def fn():
        changed = e.get(IVE, "token_shift_changed")
        if changed == 0:
            return "untestable", "the rewrites changed none of the held-out pairs (nothing to rewrite in them)"
        gap, lo, hi, n = _interval(e, "token_shift_drop")
        return ("holds" if lo > 0 else "fails",
                f"IM-RM's accuracy drop under the rewrite minus the EX-RM's: {_f(gap)} [{_f(lo)}, {_f(hi)}] over {n} "
                f"pairs, paired bootstrap (the rewrite changed {changed:.0%} of them)")

    return [_part("the IM-RM loses more accuracy under a token-level rewrite", e, fn)]


def _in_distribution(e: Evidence) -> list[Part]:
    def fn():
        gap, lo, hi, n = _interval(e, "in_distribution")
        return ("holds" if hi < 0 else "fails",
                f"IM − EX accuracy on held-out pairs of the training source: {_f(gap)} [{_f(lo)}, {_f(hi)}] over {n} "
                "pairs, paired bootstrap")

    return [_part("the IM-RM is less accurate on held-out pairs", e, fn)]


def _domain_shift(e: Evidence) -> list[Part]:
    def fn():
        domains = [s for s in e.get(IVE, "sets") if s.startswith("domain:")]
        rows = [(s.split(":", 1)[1], *_interval(e, s)) for s in domains]
        below = sum(hi < 0 for _, _, _, hi, _ in rows)
        return (share_outcome(len(rows) - below, len(rows), below),
                "IM − EX accuracy per other source, paired bootstrap: " + "; ".join(
                    f"{src} {_f(g)} [{_f(lo)}, {_f(hi)}]" for src, g, lo, hi, _ in rows))

    return [_part("no other source where the IM-RM is clearly worse", e, fn)]


def _displacement(e: Evidence) -> list[Part]:
    def training():
        end, change = e.values(IVE, "displacement", "logratio_chosen_end", "margin_change")
        return (exists_outcome(int(end < 0 and change > 0)),
                f"the chosen completion's log-ratio to the reference ended at {end:+.2f} nats (batch means) while the "
                f"margin changed by {change:+.3f}")

    def heldout():
        m, lo, hi, n = e.values(IVE, "heldout_logratios[completion=chosen]", "mean", "ci_low", "ci_high", "n")
        return (exists_outcome(int(hi < 0)), f"on {n} held-out pairs after training, the chosen completion's "
                f"log πθ − log πref is {m:+.2f} nats [{lo:+.2f}, {hi:+.2f}]")

    return [_part("along DPO training", e, training), _part("on held-out pairs after training", e, heldout)]


def implicit_explicit_claims(paper: str) -> list[Claim]:
    """The four claims, under the catalogue's label for Razin et al. (``paper``)."""
    return [
        Claim("im_token_shift", paper, "Implicit RMs (DPO's β·log πθ/πref) generalise worse than explicit RMs (a "
              "scalar head) under token-level shifts, because they lean more on the surface tokens of a response.",
              POOR_IMPLICIT, (IVE,), _DATA, _UNIT, "paired bootstrap interval of the IM-RM's accuracy drop under "
              "the rewrite minus the EX-RM's; holds when it lies above 0", _token_shift),
        Claim("im_in_distribution", paper, "Implicit RMs are often less accurate than explicit RMs even in "
              "distribution.", POOR_IMPLICIT, (IVE,), _DATA, _UNIT, "paired bootstrap interval of IM − EX accuracy "
              "on held-out pairs of the training source; holds when it lies below 0", _in_distribution),
        Claim("im_domain_shift", paper, "Under domain shifts, implicit RMs generalise comparably to or better than "
              "explicit RMs.", POOR_IMPLICIT, (IVE,), _DATA, _UNIT + " (sources as units of the share rule)",
              "paired bootstrap interval of IM − EX accuracy per other source; a source counts unless its interval "
              "lies below 0 (not significantly worse: comparable or better); share rule over the sources",
              _domain_shift),
        Claim("likelihood_displacement", paper, "DPO can make the preferred response less likely while it widens "
              "the preference margin (likelihood displacement).", DISPLACEMENT, (IVE,),
              "the IM-RM's DPO run: TRL's per-step log-ratios to the reference, and held-out pairs after training",
              "one DPO run", "existence: the chosen completion ends below its reference log-prob while the margin "
              "grew (training), and its held-out interval lies below 0", _displacement),
    ]
