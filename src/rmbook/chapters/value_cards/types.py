"""Types only, no builders: the "Value cards" page's results: one row per card (the ten paper RMs' cards from their
released scores, each placed among the other nine, and the cards of the computed models, placed among all ten), and
the summary its sentences state (``rmbook/chapters/value_cards/prose.md.j2``). The cards themselves are
:class:`rmbook.chapters.value_cards.analysis.ValueCard`, one ``card.json`` each, written by ``rmlib card``."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmlib.storage import Num, Record, Section
from rmbook.results import ChapterResults

__all__ = ["CardRow", "ComputedSummary", "TrainedPair", "Trained", "ValueCardsResults"]


class CardRow(Record):
    """One card: its gaps and where they fall, love and freedom, its foundations beyond the range, its nearest RM."""

    label: str
    model: str
    source: Literal["released scores", "computed"]
    reward_kind: str
    gap_negative: float
    side_negative: str
    gap_positive: float
    side_positive: str
    love: Num
    freedom: Num
    n_foundations_beyond: int | None  # of the 10 foundation × valence numbers (None: a quick card)
    nearest: str | None               # the paper RM it agrees with most (Kendall τ), None on a quick card
    nearest_tau: Num
    elo_rho: Num = None               # Spearman ρ with people's EloEverything ratings, None on a quick card
    elo_side: str | None = None       # where that ρ falls among the models the card was placed among
    identity_excess: Num = None       # mean excess over the EloEverything items naming groups of people (standard)
    identity_side: str | None = None  # where it falls among the models the card was placed among
    gap_negative_low: Num = None      # the gaps' 95% intervals over words and prompts together
    gap_negative_high: Num = None
    gap_positive_low: Num = None
    gap_positive_high: Num = None
    n_numbers: int | None = None      # the gap and foundation numbers the null and the base rate count
    n_beyond: int | None = None       # of those, the card's beyond every model it is placed among (whole interval)
    null_beyond_median: Num = None    # the null's count of them (the rewards shuffled over the words): median
    null_beyond_max: int | None = None
    indistinguishable: bool | None = None  # its agreement is within its null's range
    weights: str | None = None        # provenance: a fingerprint of the weights (None: released scores, a hub model)


class ComputedSummary(Section):
    """What the computed models' cards show together, beside the paper RMs'."""

    n_models: int
    n_beyond_gap: int           # computed models whose gap falls beyond all ten paper RMs under at least one valence
    beyond_gap: list[str]
    min_foundations_beyond: int | None
    max_foundations_beyond: int | None
    max_tau: Num                # the highest τ any computed model has with any paper RM
    max_tau_model: str | None
    max_tau_reference: str | None  # the paper RM it has that τ with
    lowest_paper_tau: Num       # the lowest τ between two paper RMs
    n_below_paper_tau: int      # computed models whose highest τ is below lowest_paper_tau
    elo_beyond: dict[str, str] = {}  # computed models whose ρ with the EloEverything ratings is beyond all ten: side
    n_elo: int = 0              # computed models with that ρ (standard cards)
    indistinguishable: list[str] = []  # computed models whose agreement is within their null's range (#66)
    beyond: dict[str, str] = {}  # computed model -> "n of N (null: median, at most m)": its numbers beyond the range


class TrainedPair(Record):
    """A base LM's card against the card of an RM rmlib trained from it (the finetuning chapter's runs)."""

    base: str
    rm: str
    gap_negative_base: float
    gap_negative_rm: float
    gap_positive_base: float
    gap_positive_rm: float
    n_judged: int          # the numbers with a noise estimate (gaps and foundation ranks)
    n_outside: int         # of those, the ones that moved by more than their noise
    outside: list[str]


class Trained(Section):
    """The trained RMs asked for (``TRAINED``), the pairs diffed and the RMs not trained on this machine yet."""

    asked: list[str]
    pairs: list[TrainedPair]
    missing: dict[str, str]


class ValueCardsResults(ChapterResults):
    CHAPTERS = ("value_cards",)
    SCHEMA_VERSION = 2  # 2: intervals over words and prompts, the null, the base rate (#66)

    mode: Literal[PUBLISHED_OR_COMPUTE]
    kind: Literal["quick", "standard"]
    prompts: list[str]
    n_paper_beyond_gap: int     # paper RMs whose gap falls beyond the other nine under at least one valence
    base_rate: dict[str, int] = {}  # paper RM -> its gap and foundation numbers beyond the other nine (whole interval)
    base_rate_numbers: int = 0      # the numbers counted
    base_rate_mean: Num = None      # per paper RM
    rows: list[CardRow]
    computed: ComputedSummary | None = None
    trained: Trained
