"""Types only, no builders: the method chapter's results: what one sweep found (its best and worst token), the round-
trip audit of each model's vocabulary, and the id-exact vs paper-mode demo (how often the two ways of scoring a
token disagree). Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/method/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.method.results` builds
them and re-exports them)."""
from __future__ import annotations

from rmlib.storage import Num, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Extremes", "RoundTrip", "ModesDemo", "MethodResults"]


class Extremes(Section):
    """The optimal and pessimal token of the first model's sweep of the first prompt."""

    model: str
    label: str  # the model's nickname (else its id)
    prompt: str
    reward_kind: str
    n_tokens: int
    top_k: int
    best_token: str
    best_reward: float
    worst_token: str
    worst_reward: float
    p_best: Num  # log-prob rewards only: the optimal token's next-token probability
    top_mass: Num  # ... and the top_k tokens' together


class RoundTrip(Section):
    """Which ids do not survive decode -> encode, per model, and how many BOS tokens each mode starts with."""

    table: Table  # one row per model: ids checked and changed, share changed, leading BOS per mode
    share_min: float
    share_max: float
    worst_model: str  # the model whose share changed is largest
    worst_changed: int
    worst_checked: int
    bos_paper: list[int]
    bos_exact: list[int]


class ModesDemo(Section):
    """Token ids scored both id-exact and in the paper's mode (decode, then re-tokenise), on one model."""

    model: str
    untrained_head: bool
    n_ids: int
    share_scores_differ: Num
    tolerance: Num  # |difference| above which two scores differ: 1% of the id-exact scores' SD
    n_round_trip_changed: int
    paper_n_bos_median: Num
    r_modes: Num  # correlation of the two modes' scores


class MethodResults(ChapterResults):
    CHAPTERS = ("method",)
    SCHEMA_VERSION = 2  # 2: the sweep's extremes and the audit are sections (extremes, roundtrip)

    models: list[str]
    reward_kinds: dict[str, str]
    prompts: list[str]
    extremes: Extremes
    roundtrip: RoundTrip
    demo: ModesDemo
