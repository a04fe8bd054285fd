"""Scoring one model for its card and placing it among the ten paper RMs: the card's prompts and words, the paper
RMs' released scores of the same ones, and the assembly of :class:`ValueCard` (:func:`card_from_scores`, which tests
drive with planted scores; :func:`value_card`, which scores a model through the engine's cache)."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pandas as pd

from rmbook.analysis.values import compute_value_scores, sample_lexicon
from rmbook.chapters.elo_misalignment.analysis import elo_scores
from rmbook.chapters.value_cards.measures import (ELO_ITEMS, GAP_SIDES, MAP_PROMPT, RANK_SIDES, SLOPE_SIDES,
                                                  VOCAB_PROMPTS, agreement, big_two_gaps, elo_agreement, elo_map,
                                                  elo_misvalued, exposure_slopes, framing_halves,
                                                  foundation_intervals, foundation_ranks, gap_intervals,
                                                  identity_elo_items, identity_excess, interval_placement,
                                                  placement, valence_following, vocab_extremes, word_ranks)
from rmbook.chapters.value_cards.lm import REWARDS, lm_correlations, per_token
from rmbook.chapters.value_cards.noise import base_rate as paper_base_rate, null_section
from rmbook.analysis.value_card import KINDS, ValueCard
from rmlib import __version__, engine
from rmlib.data import ELO_PROMPTS, design_prompts, elo_items, published_value_scores, value_lexicon
from rmlib.data.kinds import is_lm_logprob
from rmlib.data.manifest import load_manifest
from rmlib.registry import get_spec, model_info
from rmlib.storage.integrity import sha256_bytes
from rmlib.stats import require_columns

__all__ = ["QUICK_PROMPTS", "STANDARD_PROMPTS", "MFD2_WORDS_PER_CATEGORY", "mfd2_words", "reference_scores",
           "card_from_scores", "elo_extras", "spread_scores", "value_card", "card_answers", "card_estimate",
           "CARD_DATASETS", "data_checksums", "provenance"]

QUICK_PROMPTS = ("best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one")
STANDARD_PROMPTS = tuple(f"{adjective}_{superlative}_one"  # the design's one-word phrasing: 6 adjectives × 3
                         for adjective in ("best", "greatest", "good", "worst", "bad", "terrible")
                         for superlative in ("ever", "world", "time"))
# the datasets a card reads, whose checksums its provenance records
CARD_DATASETS = ("iclr2026_config", "iclr2026_dictionaries", "iclr2026_dictionary_scores", "elo_everything", "mfd2",
                 "big_two_pietraszkiewicz2019", "afinn")
MFD2_WORDS_PER_CATEGORY = 20  # the moral_foundations chapter's COMPUTE_WORDS_PER_CATEGORY: 200 of the 2,040 terms


def mfd2_words(seed: int = 0) -> list[str]:
    """The standard card's MFD2 terms: the moral-foundations chapter's seeded sample for computed models."""
    return sample_lexicon(value_lexicon("mfd2"), MFD2_WORDS_PER_CATEGORY, seed)


def reference_scores(prompt_keys=QUICK_PROMPTS, dictionary: str = "big2", words=None) -> pd.DataFrame:
    """The ten paper RMs' released scores of a lexicon's words (``words``; None: all) under ``prompt_keys`` (None:
    all 54), labelled by nickname."""
    ref = published_value_scores(dictionary, prompt_keys=None if prompt_keys is None else list(prompt_keys))
    if words is not None:
        ref = ref[ref["word"].isin(list(words))]
    return ref.assign(model=ref["nickname"])


def _same_prompts(scores: pd.DataFrame, reference: pd.DataFrame) -> list[str]:
    prompts = sorted(scores["prompt_key"].unique())
    if sorted(reference["prompt_key"].unique()) != prompts:
        raise ValueError(f"the model was scored under {prompts} and the reference under "
                         f"{sorted(reference['prompt_key'].unique())}: a placement needs the same prompts")
    if set(design_prompts(prompts)["valence"]) != {"positive", "negative"}:
        raise ValueError("a value card needs prompts of both valences")
    return prompts


def _gap_sections(scores, reference, n_resamples, seed) -> dict:
    intervals = gap_intervals(scores, n_resamples=n_resamples, seed=seed)
    ref_gaps = big_two_gaps(reference)
    places = []
    for row in intervals.itertuples():
        ref = ref_gaps[ref_gaps["valence"] == row.valence].set_index("model")["gap"]
        place = interval_placement(row.gap, row.ci_low, row.ci_high, ref, GAP_SIDES)
        places.append({"valence": row.valence, "gap": row.gap, **place})
    return {"gaps": intervals, "placements": places, "reference": ref_gaps}


def _foundation_sections(scores, reference, n_resamples, seed) -> dict:
    _same_prompts(scores, reference)
    if sorted(scores["word"].unique()) != sorted(reference["word"].unique()):
        raise ValueError("the model and the reference scored different MFD2 terms: a placement needs the same words")
    intervals = foundation_intervals(scores, n_resamples=n_resamples, seed=seed)
    ref = foundation_ranks(reference)
    places = []
    for row in intervals.itertuples():
        one = ref[(ref["foundation"] == row.foundation) & (ref["valence"] == row.valence)]
        places.append({"foundation": row.foundation, "valence": row.valence, "median_rank": row.median_rank,
                       **interval_placement(row.median_rank, row.ci_low, row.ci_high,
                                            one.set_index("model")["median_rank"], RANK_SIDES)})
    return {"n_foundation_words": int(scores["word"].nunique()), "foundations": intervals,
            "foundation_placements": places, "foundation_reference": ref}


def _agreement_sections(scores: pd.DataFrame, reference: pd.DataFrame, model: str) -> dict:
    cols = ["model", "prompt_key", "word", "reward"]
    tau = agreement(pd.concat([scores[cols], reference[cols]], ignore_index=True))
    own = tau[tau["model"] == model].sort_values("tau", ascending=False, kind="stable")
    pairs = tau[(tau["model"] != model) & (tau["reference"] != model) & (tau["model"] < tau["reference"])]
    return {"agreement": own, "reference_agreement": pairs}


def _slope_sections(name: str, measure, scores: pd.DataFrame, reference: pd.DataFrame, model: str) -> dict:
    """``measure`` (:func:`framing_halves` or :func:`exposure_slopes`) of the model and of each paper RM on all the
    card's words, and the model's placements, as the card's fields ``name``, ``name_placements``,
    ``name_reference``."""
    slopes = measure(pd.concat([scores.assign(model=model), reference], ignore_index=True))
    own, ref = slopes[slopes["model"] == model], slopes[slopes["model"] != model]
    places = [{"measure": r.measure, "estimate": r.estimate,
               **interval_placement(r.estimate, r.ci_low, r.ci_high,
                                    ref[ref["measure"] == r.measure].set_index("model")["estimate"], SLOPE_SIDES)}
              for r in own.itertuples()]
    return {name: own, f"{name}_placements": places, f"{name}_reference": ref}


def _elo_sections(own: pd.DataFrame, reference: pd.DataFrame, model: str, items: pd.DataFrame | None = None,
                  on_map: dict | None = None) -> dict:
    """The model's agreement with the human EloEverything ratings, placed among the paper RMs' on the same items;
    (``items``: :func:`elo_misvalued`) the items it values most above and below people's ratings; and (``on_map``:
    :func:`elo_map`) its place on the heterogeneity chapter's map."""
    if own["n_items"].iloc[0] != reference["n_items"].iloc[0]:
        raise ValueError("the model and the paper RMs were scored on different EloEverything items")
    mine = own.iloc[0].to_dict() | {"model": model}
    place = placement(mine["rho"], reference.set_index("model")["rho"], sides=SLOPE_SIDES)
    listed = [] if items is None else items.drop(columns="n_items").to_dict("records")
    out = {"elo": mine, "elo_placement": {"measure": "spearman_rho", "estimate": mine["rho"], **place},
           "elo_reference": reference, "elo_items": listed}
    if on_map is not None:
        ref = pd.Series(on_map["reference_mean_taus"])
        out["map"] = {**on_map, "prompt_key": MAP_PROMPT, "placement": {
            "measure": "mean_kendall_tau", "estimate": on_map["mean_tau"],
            **placement(on_map["mean_tau"], ref, sides=SLOPE_SIDES)}}
    return out


def _identity_section(per_item: pd.DataFrame, model: str) -> dict:
    """The model's mean excess over the identity items (:func:`identity_excess` of it and the paper RMs on the same
    items), placed among the paper RMs'."""
    means = per_item.groupby("label")["excess"].mean()
    mine = per_item[per_item["label"] == model].sort_values(["excess", "item"], kind="stable")
    ref = means.drop(model)
    return {"identity": {"n_items": int(per_item["n_items"].iloc[0]), "excess": float(means[model]),
                         "placement": {"measure": "identity_excess", "estimate": float(means[model]),
                                       **placement(float(means[model]), ref, sides=SLOPE_SIDES)},
                         "reference": ref.to_dict(), "items": mine.to_dict("records")}}


def elo_extras(wide: pd.DataFrame, spread: list[str], columns: dict[str, str], model: str) -> tuple:
    """From the wide EloEverything scores of the model (labelled ``model`` in ``columns``) and the paper RMs: its most
    misvalued items and its place on the map (both over the ``spread`` items), and the identity measure (over the
    spread and the identity items)."""
    on_spread = wide[wide["item"].isin(spread)]
    column = next(c for c, label in columns.items() if label == model)
    return (elo_misvalued(on_spread, column), elo_map(on_spread, columns, model),
            identity_excess(wide, columns))


def card_from_scores(scores: pd.DataFrame, reference: pd.DataFrame, *, model: str, label: str, reward_kind: str,
                     family: str | None, rmlib_version: str, n_resamples: int = 999, seed: int = 0,
                     foundations: tuple[pd.DataFrame, pd.DataFrame] | None = None,
                     elo: tuple | None = None, identity: pd.DataFrame | None = None,
                     vocab: pd.DataFrame | None = None, elo_rewards: pd.DataFrame | None = None,
                     base_rate: dict | None = None, **recorded) -> ValueCard:
    """The card of the one model in ``scores`` (its Big Two rewards, the long value-profile shape), placed among the
    models of ``reference`` (the same shape, with ``family``). ``foundations`` (the model's and the reference's MFD2
    rewards on the same terms and prompts) makes it a standard card, with agreement, framing and exposure; without it,
    a quick card. ``elo`` (:func:`elo_agreement` of the model and of the paper RMs on the same items, then optionally
    :func:`elo_misvalued` and :func:`elo_map` of the model) adds the EloEverything section and the map; ``identity``
    (:func:`identity_excess` of the model, labelled ``model``, and of the paper RMs) the identity items; ``vocab``
    (:func:`vocab_extremes` of the model's full-vocabulary sweeps) its extremes. Every card gets its null
    (:func:`rmbook.chapters.value_cards.noise.null_section`; ``elo_rewards``, the model's rewards of the spread
    EloEverything items with people's ratings, adds ρ to it) and the paper RMs' base rate of "beyond" (``base_rate``:
    :func:`rmbook.chapters.value_cards.noise.base_rate`, computed here when not given). ``recorded``: fields kept as
    given (checks, provenance, lm)."""
    require_columns(reference, ["model", "family"], "reference")
    prompts = _same_prompts(scores, reference)
    words = pd.concat([word_ranks(scores).assign(model=model), word_ranks(reference)], ignore_index=True)
    extra = {}
    if foundations is not None:
        all_words = [pd.concat([scores, foundations[0]], ignore_index=True),
                     pd.concat([reference, foundations[1]], ignore_index=True)]
        extra = {**_foundation_sections(*foundations, n_resamples, seed),
                 **_agreement_sections(scores.assign(model=model), reference, model),
                 **_slope_sections("framing", framing_halves, *all_words, model),
                 **_slope_sections("exposure", exposure_slopes, *all_words, model)}
    if elo is not None:
        extra.update(_elo_sections(*elo[:2], model, *elo[2:]))
    if identity is not None:
        extra.update(_identity_section(identity, model))
    if vocab is not None:
        extra.update(vocab=vocab.drop(columns="n_tokens").to_dict("records"), vocab_size=int(vocab["n_tokens"].max()))
    gaps = _gap_sections(scores, reference, n_resamples, seed)
    null = null_section(scores, reference, {**gaps, **extra}, foundations=foundations, elo_rewards=elo_rewards,
                        n_resamples=n_resamples, seed=seed)
    if base_rate is None:
        base_rate = paper_base_rate(reference, None if foundations is None else foundations[1],
                                    n_resamples=n_resamples, seed=seed)
    follows = valence_following(pd.concat([scores.assign(model=model), reference], ignore_index=True))
    return ValueCard(model=model, label=label, reward_kind=reward_kind, family=family, rmlib_version=rmlib_version,
                     kind="quick" if foundations is None else "standard", prompts=prompts,
                     valence_rho=float(follows[model]), valence_rho_reference=follows.drop(model).to_dict(),
                     n_words=int(scores["word"].nunique()), **gaps, null=null, base_rate=base_rate,
                     reference_families=reference.drop_duplicates("model").set_index("model")["family"].to_dict(),
                     words=words, **extra, **recorded)


def value_card(model: str, *, kind: str = "standard", n_resamples: int = 999, seed: int = 0, load=None,
               progress: bool = False, vocab: bool = False, label: str | None = None,
               checks: list[dict] | None = None, reward: str = "sum") -> ValueCard:
    """The card of ``model`` (any id the loader takes: an RM, or an LM as an implicit reward): its rewards of the
    card's words under the card's prompts (cached and resumable like every rmlib score), placed among the paper
    RMs. ``kind``: "quick" (Big Two under :data:`QUICK_PROMPTS`) or "standard" (Big Two and the MFD2 sample under
    :data:`STANDARD_PROMPTS`, with agreement). ``vocab``: also sweep the whole vocabulary under the FAccT paper's three
    prompts (:data:`VOCAB_PROMPTS`; the sweeps are cached like the chapters') and list the extremes. ``label``: the
    card's title (default: the registry's nickname, else the id); ``checks``: ``rmlib check``'s rows, recorded.
    ``reward`` (an LM's card, :data:`rmbook.chapters.value_cards.lm.REWARDS`): "sum", the answer's summed
    log-probability, or "per-token", its mean over the answer's tokens (:func:`per_token`)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {list(REWARDS)}, not {reward!r}")
    prompts = list(QUICK_PROMPTS if kind == "quick" else STANDARD_PROMPTS)
    scores = compute_value_scores([model], "big2", prompt_keys=prompts, progress=progress, load=load)
    if reward == "per-token":
        scores = per_token(scores)  # before anything else is scored: an RM is refused here
    standard = _standard_inputs(model, prompts, load, progress, reward) if kind == "standard" else {}
    extremes = None
    if vocab:
        extremes = vocab_extremes(engine.token_reward_table([model], VOCAB_PROMPTS, progress=progress, load=load))
    info = model_info([model]).iloc[0]
    family = info.get("lineage")  # the pretraining lineage, not the architecture (#66 item 7: SmolLM2 is not Llama)
    lm = {}
    if is_lm_logprob(scores["reward_kind"].iloc[0]):
        lm = lm_correlations(pd.concat([scores, *standard.get("foundations", ())[:1]], ignore_index=True))
    return card_from_scores(scores, reference_scores(prompts), model=model,
                            label=label or str(info.get("nickname") or model),
                            reward_kind=str(scores["reward_kind"].iloc[0]),
                            family=None if pd.isna(family) else str(family), rmlib_version=__version__,
                            n_resamples=n_resamples, seed=seed, vocab=extremes, **standard,
                            checks=checks or [], provenance=provenance(model, load, seed, n_resamples), lm=lm)


def _standard_inputs(model: str, prompts: list[str], load, progress: bool, reward: str = "sum") -> dict:
    """What a standard card scores beyond the Big Two nouns: the MFD2 sample, the EloEverything items (its ρ with
    people, its most misvalued items, its place on the map) and the items that name groups of people; each an LM's
    mean log-probability per token where ``reward`` is "per-token"."""
    terms = mfd2_words()
    mine = compute_value_scores([model], "mfd2", prompt_keys=prompts, words=terms, progress=progress, load=load)
    foundations = (per_token(mine) if reward == "per-token" else mine, reference_scores(prompts, "mfd2", words=terms))
    extra_items = identity_elo_items()
    own = elo_scores("compute", [model], n_items=ELO_ITEMS, extra_items=extra_items, load=load)
    if reward == "per-token":
        own = _per_token_elo(own, model, load, extra_items)
    ref = elo_scores("published", None, n_items=ELO_ITEMS, extra_items=extra_items)
    mine = own.scores[["item", "prompt_key", model]].rename(columns={model: "this card"})  # a paper RM's id too
    both = mine.merge(ref.scores[["item", "prompt_key", "elo_score", *ref.models]], on=["item", "prompt_key"])
    misvalued, on_map, identity = elo_extras(both, ref.items, {"this card": model} | ref.label, model)
    elo = (elo_agreement(spread_scores(own), own.models, own.label),
           elo_agreement(spread_scores(ref), ref.models, ref.label), misvalued, on_map)
    rewards = both[both["item"].isin(ref.items)][["item", "prompt_key", "elo_score", "this card"]]
    return {"foundations": foundations, "elo": elo, "identity": identity,
            "elo_rewards": rewards.rename(columns={"this card": "reward"})}


def _per_token_elo(own, model: str, load, extra_items):
    """The EloEverything scores of ``model`` (:func:`elo_scores`, computed with ``extra_items``) as its mean
    log-probability per token: the token counts are the engine's rows of the same answers, in the same order, under
    the same prompts, so they are served from its cache, not scored again."""
    texts = {ELO_PROMPTS[k].text: k for k in own.prompt_keys}
    items = own.items + [i for i in dict.fromkeys(extra_items) if i not in set(own.items)]  # as elo_scores asks
    rows = engine.answer_rewards(model, list(texts), items, progress=False, load=load)
    rows = per_token(rows).assign(prompt_key=rows["prompt"].map(texts)).rename(columns={"answer": "item"})
    scores = own.scores.drop(columns=model).merge(rows[["item", "prompt_key", "reward"]], on=["item", "prompt_key"],
                                                  validate="one_to_one").rename(columns={"reward": model})
    return replace(own, scores=scores[own.scores.columns], kinds={model: rows["reward_kind"].iloc[0]})


def data_checksums() -> dict[str, str]:
    """Each dataset the card reads -> a digest of its files' sha256 as the data manifest records them (every file
    is checked against those when read)."""
    manifest = load_manifest()
    return {key: sha256_bytes("\n".join(f"{f.path} {f.sha256}" for f in manifest[key].files).encode())[:16]
            for key in CARD_DATASETS}


def provenance(model: str, load, seed: int, n_resamples: int) -> dict:
    """What the card measured (#66 item 7): the loaded weights' fingerprint and revision (a ``local:`` folder's
    content hash, a GGUF's sha256, a hub commit), dtype, device, head and score reader, the registry's hub id, the
    date, the data checksums, and the bootstrap's seed and resamples."""
    lm = engine.resolve_model(model, load)  # what the scoring loaded (the process-wide cache holds it)
    spec = get_spec(model)
    return {"weights": lm.revision if spec.source != "hub" else None, "revision": lm.revision,
            "dtype": str(lm.dtype).removeprefix("torch."), "device": str(lm.device), "head": lm.head,
            "reader": lm.reader if lm.head == "rm" else None,
            "hub_id": spec.upstream or (spec.id if spec.source == "hub" else None),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "data": data_checksums(),
            "seed": seed, "n_resamples": n_resamples}


def spread_scores(elo) -> pd.DataFrame:
    """The scores of the items spread over the human ranking (:func:`elo_scores`' ``items``), the extra items left
    out."""
    return elo.scores[elo.scores["item"].isin(elo.items)]


def card_answers(kind: str = "standard") -> list[tuple[list[str], list[str]]]:
    """What a card of ``kind`` scores, as (prompt texts, answers) groups, every answer under every prompt of its group:
    the Big Two nouns (and, for a standard card, the MFD2 sample) under the card's design prompts; for a standard
    card also the :data:`ELO_ITEMS` EloEverything items and those that name a group of people
    (:func:`identity_elo_items`) under the elo_misalignment chapter's prompts."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    keys = list(QUICK_PROMPTS if kind == "quick" else STANDARD_PROMPTS)
    words = value_lexicon("big2")["word"].tolist() + (mfd2_words() if kind == "standard" else [])
    groups = [(design_prompts(keys)["prompt"].tolist(), words)]
    if kind == "standard":
        spread = elo_items(next(iter(ELO_PROMPTS)), ELO_ITEMS)["item"].tolist()  # as elo_scores picks them
        items = spread + [i for i in identity_elo_items() if i not in set(spread)]
        groups.append(([p.text for p in ELO_PROMPTS.values()], items))
    return groups


def card_estimate(model: str, kind: str = "standard", gpu: str = "h200", mfu: float | None = None) -> float | None:
    """The GPU seconds a card of ``model`` would take by the cost model (:mod:`rmlib.engine.cost`: FLOPs from the
    registry's architecture at an assumed MFU, its ``DEFAULT_MFU`` unless given): an **estimate, not a
    measurement**, without loading. None when the registry records no architecture for the model."""
    costs = [engine.job_cost(engine.Job(model=model, prompt_key=f"{kind} card", prompt=prompts[0], kind="answers",
                                        answers=tuple(answers), prompts=tuple(prompts)))
             for prompts, answers in card_answers(kind)]
    if any(c is None for c in costs):
        return None
    return sum(c.seconds(engine.GPUS[gpu], engine.DEFAULT_MFU if mfu is None else mfu) for c in costs)
