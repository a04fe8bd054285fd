"""Each chapter's results *type*, alone: the classes of :mod:`rmbook.analysis.results.<module>` without the functions
that build them, one module per results module (``method.py``, ``distributions.py``, ``heterogeneity.py``,
``elo_misalignment.py``, ``identity_terms.py``, ``framing.py``, ``mere_exposure.py``, ``value_profiles.py``,
``implicit_rewards.py``, ``finetuning.py``, ``longer_answers.py``, ``good_teachers.py``, ``implicit_vs_explicit.py``,
``blinding.py``), and ``beside.py``, a section several chapters' types hold (no chapter's own).

A type imports no chapter's analysis (only :mod:`rmbook.analysis.choices`, the claims rules and storage), so the claims
page, which reads every chapter's typed results (:func:`rmbook.analysis.results.result_type`), does not import every
chapter's analysis, and an edit to one analysis leaves it current (:mod:`rmbook.book.imported`). The builders'
modules re-export these classes: ``results.HeterogeneityResults`` is the same class.
"""

import pkgutil

from rmlib.lazy import lazy_submodules

__all__ = sorted(m.name for m in pkgutil.iter_modules(__path__))
__getattr__, __dir__ = lazy_submodules(__name__, __all__)
