"""Results types that several chapters' types hold: ``beside.py`` (the compute-mode section that keeps the paper RMs
on a chapter's page). Each chapter's own type is its folder's ``types.py`` (:mod:`rmbook.chapters`); a type imports no
chapter's analysis (only :mod:`rmbook.analysis.choices`, the claims rules and storage), so the claims page, which
reads every chapter's typed results, does not import every chapter's analysis.
"""

import pkgutil

from rmlib.lazy import lazy_submodules

__all__ = sorted(m.name for m in pkgutil.iter_modules(__path__))
__getattr__, __dir__ = lazy_submodules(__name__, __all__)
