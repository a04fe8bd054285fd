"""Types only, no builders: the section a chapter run in compute mode adds so that the ten paper RMs stay on its page
(:mod:`rmbook.analysis.beside`): the chapter's own measure of each computed model, placed among the paper RMs' values
on the same prompts and answers. Several chapters' results types hold it (framing, mere_exposure, identity_terms,
elo_misalignment); none of them has it in published mode."""
from __future__ import annotations

from rmlib.storage import Record, Section

__all__ = ["Placed", "Beside"]


class Placed(Record):
    """One computed model's estimate of one measure among the paper RMs' (rank from the low end among the model and
    the paper RMs; ``low``/``high``: the paper RMs' range; ``nearest``: the closest paper RMs, joined)."""

    label: str
    measure: str
    estimate: float
    side: str
    rank: int
    n_reference: int
    nearest: str
    low: float
    high: float
    n_words: int  # the words (or items) this estimate rests on


class Beside(Section):
    """What was placed and on what: the measure in words, the run's prompts that the paper RMs were scored under word
    for word (``prompts``) and those they were not (``missing``), the words or items each placement rests on, and one
    row per computed model and measure (none when no prompt matched)."""

    what: str
    prompts: list[str]
    missing: list[str]
    unit: str  # "words" or "EloEverything items"
    rows: list[Placed]
    unplaced: dict[str, str] = {}  # computed models not placed, and why (no word in common with the paper RMs)
