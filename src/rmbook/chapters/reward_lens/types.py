"""Types only, no builders: the "Where the value lives" page's results: per model the gap the lens reads and where it
is written, per RM the part written by its frozen layers, and the patching check of the attribution."""
from __future__ import annotations

from rmlib.storage import Num, Record
from rmbook.results import ChapterResults

__all__ = ["LayerGap", "ModelLens", "RMSplit", "Agreement", "PatchCheck", "Summary", "RewardLensResults"]


class LayerGap(Record):
    """What one layer (-1: the embedding) wrote into the agency − communion gap, with an interval over words."""

    model: str
    kind: str  # implicit (an LM's logits) or explicit (an RM's score)
    layer: int
    gap: float
    ci_low: Num
    ci_high: Num
    prompt_min: float
    prompt_max: float


class ModelLens(Record):
    """One model's reward read by the lens: its kind (implicit: an LM's logits; explicit: an RM's score)."""

    model: str
    kind: str
    n_words: int   # the words it keeps whole (one token)
    n_asked: int   # of the words asked
    n_layers: int
    max_sum_error: float  # the largest |sum of parts - the model's own score| over words and prompts
    dtype: str            # what the model computed in (the sum's error is bfloat16's rounding there)


class RMSplit(Record):
    """An RM's gap split at its frozen boundary (the first ``boundary`` layers are copies of its base LM's)."""

    rm: str
    base: str | None
    seed: int | None
    boundary: int
    n_tuned: int
    total: float
    total_low: Num
    total_high: Num
    frozen: float
    frozen_low: Num
    frozen_high: Num
    tuned: float
    tuned_low: Num
    tuned_high: Num
    frozen_share: Num
    frozen_identity: Num = None  # float32: max |RM's residual after its frozen layers - its base LM's| / max |base's|


class Agreement(Record):
    """Whether the RMs trained from one base (one per seed) agree on where their gap is written."""

    base: str
    n_rms: int
    share_min: Num         # the smallest frozen share of the gap among them
    share_max: Num
    n_frozen_with_gap: int  # RMs whose frozen part's interval lies wholly on their gap's side of 0
    n_tuned_with_gap: int   # the same for the tuned part
    n_gap_signs: int        # how many signs their whole gaps take (1: all agree)


class PatchCheck(Record):
    """Each block's attribution beside its patching effect for one RM: Spearman's rho over blocks with its interval,
    and the blocks where they disagree."""

    rm: str
    n_pairs: int
    gap: Num
    rho: Num
    rho_low: Num
    rho_high: Num
    disagree: list[str]
    n_blocks: int


class Summary(Record):
    """What the RMs show together (the page's "In brief")."""

    n_rms: int
    n_gap_beyond_zero: int     # RMs whose gap's interval excludes 0
    n_tuned_with_gap: int      # RMs whose tuned part's interval lies wholly on their gap's side of 0
    n_frozen_with_gap: int     # the same for the frozen part
    rho_min: Num               # the lowest and highest Spearman rho between attribution and patching
    rho_max: Num
    n_rho_above_zero: int      # RMs whose rho's interval lies above 0
    disagree_min: int          # the fewest and most blocks (the embedding aside) whose attribution patching refutes
    disagree_max: int
    n_identity: int            # RMs whose frozen layers were checked against their base LM's
    identity_max: Num          # the largest relative difference found there


class RewardLensResults(ChapterResults):
    CHAPTERS = ("reward_lens",)
    SCHEMA_VERSION = 1  # first version; bump on any renamed or retyped field

    prompts: list[str]
    models: list[ModelLens]
    layers: list[LayerGap]
    splits: list[RMSplit]
    agreement: list[Agreement]
    patching: list[PatchCheck]
    summary: Summary | None
    missing: dict[str, str]
