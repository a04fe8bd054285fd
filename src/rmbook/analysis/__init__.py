"""The book's findings (layer 5): one module per finding, each returning tables, dicts or dataclasses a test can
check; the chapters call these and then show them (:mod:`rmbook.report`).

| module | finding |
|---|---|
| ``method`` | the method chapter: live token sweeps and their extremes, the round-trip audit, id-exact vs paper mode |
| ``heterogeneity`` | how alike RMs rank the same items |
| ``categories``, ``distributions`` | what kind of answer fills each tail of a reward distribution |
| ``misalignment``, ``topics`` | where RMs over- or under-value items relative to people, and which topics |
| ``human_ratings`` | RMs against human ratings (EloEverything): the elo_misalignment chapter, on ``misalignment`` |
| ``framing`` (package: ``contrast``, ``sources``) | whether the prompt's valence changes which words an RM is sensitive to |
| ``exposure`` (package: ``slopes``, ``verdicts``) | whether RMs prefer frequent words |
| ``identity`` | where words for groups of people fall in an RM's ranking |
| ``words`` | from token sweeps to words (shared by the three above) |
| ``values``, ``families`` | value scores (Big Two, MFD2) and whether base families rank them differently |
| ``implicit`` | implicit rewards between LMs (MWLR, DPO log-ratio) |
| ``implicit_explicit`` | implicit (DPO) vs explicit RMs trained alike: accuracy in distribution and under shifts |
| ``token_shift`` | the token-level shift: deterministic, meaning-preserving rewrites of preference pairs' responses |
| ``longer_answers`` | multi-token optima and pessima (GCG) against the one-token ones of the exhaustive sweep |
| ``finetuning``, ``durability`` | RMs trained from several bases on identical data; durable family orders |
| ``blinding`` (package: ``prompts``, ``scores``, ``disparity``) | can a model ignore an identity descriptor (told to; shown a blinded replica) |
| ``teaching`` (package: ``dynamics``, ``settings``, ``stats``) | whether an accurate RM is a good teacher (Razin et al.) |
| ``claims`` | every claim of the two papers, judged from the chapters' results |
| ``card`` (package: ``measures``, ``record``, ``build``, ``diff``) | a value card of any RM: the Big Two and moral-foundations chapters' numbers for one model, placed among the ten paper RMs |
| ``beside`` | a chapter's computed models beside the ten paper RMs (compute mode): the same measure on their released scores of the same answers and prompts, and one placement rule (shared with ``card``) |
| ``choices`` | the closed sets of choices (run modes, ...) an analysis takes and its results type validates |
| ``results/`` | each chapter's typed results (a :class:`rmlib.storage.ChapterResults`), one module per chapter |

Importing this package imports none of them: ``from rmbook.analysis import values`` (or ``analysis.values``) loads
that one module, so a chapter's kernel imports only the findings it uses, and an edit to one finding's module leaves
the other chapters' stamps current (:mod:`rmbook.book.stamps` hashes the modules a chapter's kernel imported). No
module here loads a model library at import: they import ``rmlib.engine`` and ``rmlib.models`` at the top, and those
faces load torch only when a function that scores a model runs (:mod:`rmlib.lazy`).
"""
import pkgutil

from rmlib.lazy import lazy_submodules

__all__ = sorted(m.name for m in pkgutil.iter_modules(__path__))  # every finding's module, found, not listed
__getattr__, __dir__ = lazy_submodules(__name__, __all__)
