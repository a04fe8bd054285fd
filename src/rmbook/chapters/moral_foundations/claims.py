"""The claims the moral_foundations chapter's results test (whether RMs differ by base family along several moral
foundations): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's
numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the
macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's
"In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (ALPHA, MULTIPLE, Claim, Evidence, Part, evaluate_part as _part, fdr_floor,
                                    sentences, ICLR, ICLR_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("moral_foundations")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def _foundation_directions(e: Evidence, panels) -> dict:
    """The fields of a clause (the ``directions`` macro): who ranks which foundation higher under positive prompts,
    and how many foundations' family differences turn round under negative prompts (a difference in what the RMs
    value should: the favoured foundation is ranked lower as 'the worst thing'). ``panels``: the foundation ×
    valence panels' node."""
    by = {(r.foundation, r.valence): r.difference for r in panels}
    found = sorted({f for f, _ in by})
    pos, neg = ({f: by.get((f, v)) for f in found} for v in ("positive", "negative"))
    mirrored = [f for f in found if pos[f] is not None and neg[f] is not None and pos[f] * neg[f] < 0]
    gemma = [f for f in found if pos[f] is not None and pos[f] < 0]
    llama = [f for f in found if pos[f] is not None and pos[f] > 0]
    return {"gemma": gemma, "llama": llama, "mirrored": mirrored,
            "n_mirrored": e.derive("foundations that turn round", len(mirrored)),
            "n_foundations": e.derive("foundations", len(found))}


def _significant_foundations(panels, foundation_of) -> list[str]:
    """The foundations with at least one panel significant after FDR (``foundation_of``: a panel -> its foundation):
    "several foundations" counts foundations, so one foundation significant under both valences is one."""
    return sorted({foundation_of(r) for r in panels if r.p_fdr < ALPHA})


def mfd2(e: Evidence) -> list[Part]:
    # "Differ along several foundations" names no direction per foundation, so failing to find a difference is
    # not evidence of none: short of MULTIPLE foundations with a significant panel the part is not established,
    # never fails.
    def pooled():
        pooled = e.of("moral_foundations").by_foundation
        k, n, raw = pooled.n_significant_fdr, pooled.n_panels, pooled.n_significant_raw
        found = _significant_foundations(pooled.panels, lambda r: r.foundation)
        n_found = e.derive("foundations with a panel significant after FDR", len(found))
        floor, floor_text = fdr_floor(e, pooled, k=MULTIPLE)
        directions = _foundation_directions(e, pooled.panels)
        return ("holds" if n_found >= MULTIPLE else "not established",
                said("mfd2_pooled", n_significant=k, n_panels=n, n_significant_raw=raw, directions=directions,
                     foundations=found, n_found=n_found, at=floor_text), {"floor": floor})

    def split():
        published = e.of("moral_foundations").results["published"]
        k, n = published.n_significant_fdr, published.n_panels
        found = _significant_foundations(published.panels, lambda r: r.category.split(".")[0])
        n_found = e.derive("foundations with a virtue or vice panel significant after FDR", len(found))
        floor, floor_text = fdr_floor(e, published, k=MULTIPLE)
        return ("holds" if n_found >= MULTIPLE else "not established",
                said("mfd2_split", n_significant=k, n_panels=n, foundations=found, n_found=n_found, at=floor_text),
                {"floor": floor})

    why = "'several foundations differ' names no direction per foundation, and no test here shows foundations alike"
    return [_part("several foundations differ by base family", e, pooled, one_sided=why),
            _part("the same with virtue and vice apart", e, split, context=True, one_sided=why)]


CLAIMS: list[Claim] = [
    Claim("mfd2", ICLR, "RMs differ by base model along several moral foundations.", ICLR_ABSTRACT
          + " ('multiple dimensions of human value')", ("moral_foundations",),
          "published scores of the 10 RMs for the MFD2 terms, 54 prompts", "RMs",
          f"permutation tests per foundation × valence panel (virtue and vice pooled, as the authors do), models as "
          f"replicates, FDR; holds with at least {MULTIPLE} foundations that have a significant panel", mfd2, place=2),
]
