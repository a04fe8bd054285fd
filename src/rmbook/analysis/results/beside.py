"""The compute-mode section that keeps the paper RMs on a chapter's page (:class:`Beside`), built from
:mod:`rmbook.analysis.beside`'s placements; the chapters that hold it (framing, mere_exposure, identity_terms,
elo_misalignment) build it here, so they build it the same way."""
from __future__ import annotations

from rmbook.analysis.results.types.beside import Beside, Placed

__all__ = ["Beside", "Placed", "beside_section"]


def beside_section(found: dict | None, what: str, unit: str = "words") -> Beside | None:
    """The section from a chapter's ``beside_paper_rms(...)`` result (None in published mode: None)."""
    if found is None:
        return None
    return Beside(what=what, prompts=list(found["prompts"]), missing=list(found["missing"]), unit=unit,
                  rows=found["placements"].to_dict("records"), unplaced=dict(found.get("unplaced", {})))
