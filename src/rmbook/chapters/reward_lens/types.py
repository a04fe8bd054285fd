"""Types only, no builders: the "Where the value lives" page's results: per model the gap the lens reads and where it
is written, per RM the part written by its frozen layers, and the patching check of the attribution."""
from __future__ import annotations

from rmlib.storage import ChapterResults, Num, Record

__all__ = ["LayerGap", "ModelLens", "RMSplit", "Agreement", "PatchCheck", "RewardLensResults"]


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
    frozen_identity: Num = None  # max |RM's residual after its frozen layers - its base LM's| / max |base's| (0: a copy)


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


class RewardLensResults(ChapterResults):
    CHAPTERS = ("reward_lens",)
    SCHEMA_VERSION = 1

    prompts: list[str]
    models: list[ModelLens]
    layers: list[LayerGap]
    splits: list[RMSplit]
    agreement: list[Agreement]
    patching: list[PatchCheck]
    missing: dict[str, str]
