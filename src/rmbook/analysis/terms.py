"""How a term that names a group of people is shown: ``flag`` marks one that is pejorative in some uses. The
identity_terms chapter's tables and the value card's groups-of-people paragraph (``rmbook.report.card``) show terms
the same way, and a shared module imports no chapter (#64 item 2), so the mark lives here."""
from __future__ import annotations

__all__ = ["flag"]


def flag(term: str, pejorative: bool) -> str:
    """A term as the tables show it: '†' marks one that is pejorative in some uses."""
    return f"{term} †" if pejorative else term
