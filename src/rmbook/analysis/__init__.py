"""Analysis that several chapters share (layer 6); each chapter's own analysis is in its folder
(:mod:`rmbook.chapters`).

| module | what it holds | used by |
|---|---|---|
| ``words`` | from token sweeps to words, and sweeps of different tokenizers aligned on their text | framing, mere_exposure, identity_terms, distributions, heterogeneity |
| ``categories`` | what kind of answer fills each tail of a reward distribution | distributions, longer_answers, elo_misalignment |
| ``values``, ``families`` | value scores (Big Two, MFD2) and whether base families rank them differently | big_two, moral_foundations, implicit_rewards, finetuning, value_cards |
| ``beside`` | a chapter's computed models beside the ten paper RMs (compute mode): the same measure on their released scores of the same answers and prompts, and one placement rule (shared with value cards) | framing, mere_exposure, identity_terms, elo_misalignment, value_cards |
| ``value_card`` | the typed value card (``card.json``) and the constants its sentences need | value_cards, the card's sentences and page (``rmbook.report.card``) |
| ``terms`` | how a term that names a group of people is shown (``flag``: † where pejorative in some uses) | identity_terms, the card's sentences |
| ``choices`` | the closed sets of choices (run modes, ...) an analysis takes and its results type validates | most chapters |
| ``claims/`` | how a paper's claim is judged: the rules, evidence with provenance, the papers, and the chapters' claims (each chapter's ``claims.py``) gathered by name and judged | every chapter that holds claims (its "In brief"), the claims page |
| ``results/`` | :func:`result_type` (a chapter's results type, found by its name) and the ``beside`` section several chapters' results hold | the claims page, the tests |

Importing this package imports none of them: ``from rmbook.analysis import values`` (or ``analysis.values``) loads
that one module, so a chapter's kernel imports only what it uses, and an edit to one module leaves the other
chapters' stamps current (:mod:`rmbook.book.stamps` hashes the modules a chapter's kernel imported). No module here
loads a model library at import: they import ``rmlib.engine`` and ``rmlib.models`` at the top, and those faces load
torch only when a function that scores a model runs (:mod:`rmlib.lazy`).
"""
import pkgutil

from rmlib.lazy import lazy_submodules

__all__ = sorted(m.name for m in pkgutil.iter_modules(__path__))  # every finding's module, found, not listed
__getattr__, __dir__ = lazy_submodules(__name__, __all__)
