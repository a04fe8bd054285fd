"""The typed value card (``card.json``): a :class:`rmbook.results.ChapterResults`, so a damaged or foreign file is
refused when read, and every number the card's sentences and charts show is a field here. It lives here, not in the
value_cards chapter, because ``rmbook.report.card`` (the card's sentences and page) reads it too, and no shared module
imports a chapter (#64 item 2); the constants the card's sentences need beside it are here for the same reason."""
from __future__ import annotations

from rmlib.storage import Record, Section
from rmbook.results import ChapterResults

__all__ = ["KINDS", "GREATEST_PROMPT", "IDENTITY_K", "Check", "NullSection", "BaseRate", "Provenance", "Gap", "Interval", "Placement", "WordRank", "FoundationRank", "FoundationInterval",
           "FoundationPlacement", "Agreement", "Slope", "SlopePlacement", "EloAgreement", "EloItem", "VocabToken",
           "ValueCard"]

KINDS = ("quick", "standard")
GREATEST_PROMPT = "greatest_ever_one"  # the prompt under which the card ranks love and freedom
IDENTITY_K = 3  # identity items listed at each end of the model's excess


class Check(Record):
    """One of ``rmlib check``'s checks, run before the card (:mod:`rmlib.engine.preflight`)."""

    check: str
    status: str            # PASS, WARN, FAIL, SKIP or INFO
    detail: str


class NullSection(Section):
    """The card against a null model (:mod:`rmbook.chapters.value_cards.noise`): the model's best τ with a paper RM
    and its ρ with people, each with an interval over words and prompts, the null's values of both, and how many of
    the card's gap and foundation numbers the null puts beyond every paper RM."""

    method: str
    n_shuffles: int
    n_numbers: int                  # the numbers counted: the gaps (and the foundation ranks of a standard card)
    model_beyond: int               # of those, the model's beyond every paper RM (whole interval)
    beyond: list[int]               # the null's count of them, per shuffle
    tau: float                      # the model's highest Kendall τ with a paper RM (Big Two nouns)
    tau_reference: str
    tau_low: float                  # its interval over words and prompts
    tau_high: float
    null_tau_median: float
    null_tau_high: float            # the null's upper 2.5% of its highest τ
    rho: float | None = None        # standard card: Spearman ρ with people's EloEverything ratings
    rho_low: float | None = None
    rho_high: float | None = None
    null_rho_low: float | None = None   # the null's central 95% of ρ
    null_rho_high: float | None = None
    indistinguishable: bool         # its intervals of agreement reach into the null's range


class BaseRate(Section):
    """How often "beyond" arises among the paper RMs themselves: each placed among the other nine by the card's
    rule, on the same numbers the null counts."""

    n_numbers: int
    per_model: dict[str, int]       # paper RM -> its numbers beyond the other nine
    mean: float                     # per paper RM
    rate: float                     # mean / n_numbers


class Provenance(Section):
    """What the card measured, so that two cards can be told apart (#66 item 7)."""

    weights: str | None = None      # a fingerprint of the weights (a local folder's content hash; a GGUF's sha256)
    revision: str | None = None     # the hub commit or source revision the weights were loaded from
    dtype: str | None = None
    device: str | None = None
    reader: str | None = None       # how an RM's score is read (rmlib.models.reward_heads), None for an LM
    head: str | None = None         # rm or lm
    hub_id: str | None = None       # the registry's hub id of the model
    date: str                       # when the card was made (UTC, ISO 8601)
    data: dict[str, str] = {}       # data file -> its sha256, as the data manifest records it
    seed: int = 0                   # the bootstrap's seed (two cards pair their draws when these match)
    n_resamples: int = 0


class Gap(Record):
    """One model's agency − communion gap in median rank under one prompt valence (negative: agency ranks higher)."""

    model: str
    valence: str
    agency: float      # median rank of the agency words, averaged over the valence's prompts
    communion: float
    gap: float         # agency − communion
    n_prompts: int


class Interval(Section):
    valence: str
    gap: float
    ci_low: float | None   # percentile bootstrap over prompts and words together
    ci_high: float | None
    n_prompts: int
    n_resamples: int
    prompt_gaps: dict[str, float]  # the gap under each prompt of the valence
    draws: list[float] = []        # the bootstrap's draws, in the seed's order (what `card diff` pairs)


class Placement(Section):
    valence: str
    gap: float
    rank: int              # 1 = the most agency-leaning of the model and the ten
    n_reference: int
    side: str              # one of GAP_SIDES (its whole interval beyond every paper RM), or "among them"
    nearest: list[str]     # the paper RMs with the closest gaps (nicknames), closest first
    nearest_distance: float
    point_side: str = ""   # where the point alone falls


class WordRank(Record):
    model: str
    word: str
    rank: float            # among the Big Two nouns under GREATEST_PROMPT (1 = highest)
    n_words: int


class FoundationRank(Record):
    """One model's median rank of one foundation's terms (virtue and vice pooled) under one valence, averaged over
    its prompts (1 = highest reward; under a negative prompt that is the *worst* thing)."""

    model: str
    foundation: str
    valence: str
    median_rank: float
    n_prompts: int


class FoundationInterval(Section):
    foundation: str
    valence: str
    median_rank: float
    ci_low: float | None
    ci_high: float | None
    n_prompts: int
    n_resamples: int
    prompt_values: dict[str, float]  # the median rank under each prompt
    draws: list[float] = []          # the bootstrap's draws, in the seed's order


class FoundationPlacement(Section):
    foundation: str
    valence: str
    median_rank: float
    rank: int              # 1 = the foundation ranked highest by the model and the ten
    n_reference: int
    side: str              # one of RANK_SIDES (its whole interval beyond), or "among them"
    nearest: list[str]
    nearest_distance: float
    point_side: str = ""


class Agreement(Record):
    """Kendall's τ-b between two models' rewards of the same words, within each prompt, averaged over prompts."""

    model: str
    reference: str
    tau: float
    n_prompts: int
    n_words: int


class Slope(Record):
    """One regression number of one model on the card's words: a half of the framing claim (``measure``
    pos_prompts | neg_prompts) or the frequency slope under one prompt valence (negative | positive)."""

    model: str
    measure: str
    estimate: float
    ci_low: float | None   # 95%, standard errors clustered by word
    ci_high: float | None
    p: float | None = None
    n_words: int


class SlopePlacement(Section):
    measure: str
    estimate: float
    rank: int              # 1 = the lowest of the model and the ten
    n_reference: int
    side: str              # "below every paper RM" | "above every paper RM" | "among them"
    nearest: list[str]
    nearest_distance: float
    point_side: str = ""   # framing and exposure: where the point alone falls (side: its whole interval)


class EloAgreement(Record):
    """Spearman's ρ between a model's rewards of EloEverything items and the human ratings, averaged over prompts."""

    model: str
    rho: float
    rho_min: float         # the lowest and highest ρ of one prompt
    rho_max: float
    n_items: int
    n_prompts: int


class EloItem(Record):
    """An EloEverything item the model values far above or below people's rating (ranks averaged over prompts)."""

    item: str
    direction: str         # "over" (the model ranks it higher than people do) or "under"
    rank_diff: float       # people's rank minus the model's, among the card's items
    model_rank: float
    human_rank: float


class MapPoint(Record):
    """One model's place on the two-dimensional map (classical MDS of 1 − Kendall τ)."""

    label: str
    dim1: float
    dim2: float


class ModelMap(Section):
    """The model on the heterogeneity chapter's map of the paper RMs (Kendall τ over the card's EloEverything items
    under the chapter's prompt): its τ with each paper RM, its mean τ placed among each paper RM's mean τ with the
    other nine, and the map's points."""

    prompt_key: str
    n_items: int
    taus: dict[str, float]             # paper RM -> its τ with the model, highest first
    mean_tau: float
    reference_mean_taus: dict[str, float]
    placement: SlopePlacement          # of mean_tau among reference_mean_taus
    points: list[MapPoint]
    explained: float                   # the share of the spread the two dimensions keep


class IdentityItem(Record):
    """An EloEverything item that names a group of people, as the model places it against people's rating."""

    item: str
    term: str
    axis: str
    gap: float             # the model's percentile minus people's, among the card's items (averaged over prompts)
    excess: float          # the gap minus the gap any item of the same human rank gets from the model
    pejorative_in_some_uses: bool = False


class IdentitySection(Section):
    """The identity_terms chapter's measure on the card's EloEverything items: the model's mean excess over the items
    that name a group of people, placed among the paper RMs' mean excess on the same items."""

    n_items: int                       # the items the percentiles are taken over (the spread and these)
    excess: float
    placement: SlopePlacement          # of excess among reference
    reference: dict[str, float]        # paper RM -> its mean excess
    items: list[IdentityItem]          # the model's, lowest excess first


class VocabToken(Record):
    """One of the highest- or lowest-rewarded tokens of a full-vocabulary sweep under one prompt (``--vocab``)."""

    prompt_key: str
    side: str              # "highest" or "lowest"
    rank: int              # 1 = the extreme
    token_id: int
    text: str              # as decoded (the card's sentences mask slurs; this record keeps the data)
    reward: float


class ValueCard(ChapterResults):
    """One model's value card (``card.json``): what was measured, how, and where it falls among the paper RMs."""

    CHAPTERS = ("card",)
    SCHEMA_VERSION = 3  # 2: the standard card (foundations, agreement); 3: intervals over words, null, provenance
    WRITTEN_BY = "`rmlib card`"  # no chapter writes a card: a damaged one is made again by the command (#62)
    REMAKE = "remake the card (`rmlib card MODEL`, MODEL being the model it describes)"

    model: str
    label: str
    reward_kind: str
    family: str | None          # the registry's family: the pretraining lineage, when it knows one
    rmlib_version: str
    kind: str                   # one of KINDS
    prompts: list[str]
    n_words: int
    gaps: list[Interval]
    placements: list[Placement]
    reference: list[Gap]        # the ten paper RMs' gaps, from their released scores
    reference_families: dict[str, str]  # paper RM nickname -> base family
    words: list[WordRank]       # the model's and the paper RMs' ranks of WORDS
    n_foundation_words: int = 0                      # standard card: the MFD2 terms scored (0: none)
    foundations: list[FoundationInterval] = []
    foundation_placements: list[FoundationPlacement] = []
    foundation_reference: list[FoundationRank] = []  # the ten paper RMs' foundation ranks on the same terms
    agreement: list[Agreement] = []                  # the model with each paper RM, most alike first
    reference_agreement: list[Agreement] = []        # each pair of paper RMs, the same way
    framing: list[Slope] = []                        # standard card: the model's two halves of the framing claim
    framing_placements: list[SlopePlacement] = []
    framing_reference: list[Slope] = []              # the ten paper RMs' halves on the same words and prompts
    exposure: list[Slope] = []                       # standard card: the frequency slope under each prompt valence
    exposure_placements: list[SlopePlacement] = []
    exposure_reference: list[Slope] = []
    elo: EloAgreement | None = None                  # standard card: agreement with people's ratings
    elo_placement: SlopePlacement | None = None
    elo_reference: list[EloAgreement] = []
    elo_items: list[EloItem] = []                    # its most over- and under-valued items against people
    map: ModelMap | None = None                      # its place on the heterogeneity chapter's map
    identity: IdentitySection | None = None          # where it places the items that name groups of people
    vocab: list[VocabToken] = []                     # --vocab: the extremes of the whole vocabulary, per prompt
    vocab_size: int = 0                              # the tokens swept per prompt (special tokens aside; 0: none)
    words_prompt: str = GREATEST_PROMPT              # the prompt the ranks of WORDS are under
    checks: list[Check] = []                         # rmlib check's checks, run before the card
    null: NullSection | None = None                  # the card against its null model
    base_rate: BaseRate | None = None                # "beyond" among the paper RMs themselves
    provenance: Provenance | None = None
    lm: dict[str, float] = {}                        # an LM's card: its rewards' correlations with length and frequency
    valence_rho: float | None = None                 # ρ of its word ranks under positive vs negative prompts
    valence_rho_reference: dict[str, float] = {}     # the paper RMs' same ρ
