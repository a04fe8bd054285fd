"""The mere-exposure chapter's analysis (FAccT 2025): do reward models prefer frequent words?

Modules:

* ``slopes.py``: frequency slopes per model and prompt cell, their shuffled baseline, and the pooled per-model slopes;
* ``verdicts.py``: the data of a run, the verdict per model, whether the frequency matchings agree, the LM control.

The names of ``slopes.py`` are re-exported here, so ``exposure.<name>`` reads as before.
"""
from rmbook.chapters.mere_exposure import slopes, verdicts
from rmbook.chapters.mere_exposure.slopes import (exposure_frame, token_exposure_frame, attach_reference_logprob,
                                                  FREQUENCY_LABELS, exposure_cells, exposure_shares,
                                                  exposure_by_group, pooled_frequency_slopes)

__all__ = ["slopes", "verdicts", "exposure_frame", "token_exposure_frame", "attach_reference_logprob",
           "FREQUENCY_LABELS", "exposure_cells", "exposure_shares", "exposure_by_group", "pooled_frequency_slopes"]
