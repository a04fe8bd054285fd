"""The blinding chapter's results: per model, whether hiding or neutralising the identity descriptor in a decision
prompt shrinks the gap in P(yes) between descriptors, with bootstrap intervals, verdict counts per condition, and
what the RMs prefer. Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/blinding/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.blinding.prompts import CONDITION_LABELS, decision_prompts
from rmbook.chapters.blinding.types import (Missing, ExamplePrompt, Setup, Tokens, Unusable, Scoring, Behaviour,
                                            VerdictRow, ModelVerdicts, Backfire, Verdicts, Effect, Effects, Rms,
                                            Point, Points, BlindingResults)

__all__ = ["Missing", "ExamplePrompt", "Setup", "Tokens", "Unusable", "Scoring", "Behaviour", "VerdictRow",
           "ModelVerdicts", "Backfire", "Verdicts", "Effect", "Effects", "Rms", "Point", "Points", "BlindingResults",
           "setup", "tokens", "scoring", "behaviour", "verdicts", "effects", "rms", "points", "chapter_results"]

SUMMARY_COLUMNS = ["model", "condition", "informed", "value", "reduction", "relative", "ci_low", "ci_high", "verdict"]
EXAMPLE_COLUMNS = ["model", "template", "prompt", "replica_answer", "replica_p"]
VERDICTS = ("reduces", "increases", "no reliable change", "too few templates")


def setup(design, dtype: str, missing: dict[str, str]) -> Setup:
    """The section of the design this run asks (``design``: :func:`rmbook.chapters.blinding.prompts.load_design`,
    selected) and the requested models that are missing (:func:`rmbook.chapters.blinding.scores.split_available`)."""
    n_t, n_d = len(design.templates), len(design.descriptors)
    t, d = design.templates.iloc[0], design.descriptors.iloc[0]
    example = decision_prompts(design.select(1, [d["axis"]])).iloc[:3]
    return Setup(n_templates=n_t, n_descriptors=n_d, n_domains=design.templates["domain"].nunique(),
                 n_axes=design.descriptors["axis"].nunique(), n_informed=n_t * n_d, n_prompts=n_t * (3 * n_d + 1),
                 domains=list(dict.fromkeys(design.templates["domain"])),
                 axes=list(dict.fromkeys(design.descriptors["axis"])), dtype=dtype, missing=missing,
                 missing_reasons=[Missing(model=m, reason=why.split(" (")[0]) for m, why in missing.items()],
                 first_article=t["article"], first_noun=t["noun"],
                 ignore_instruction=design.ignore_instruction.format(noun=t["noun"], attribute=d["attribute"]),
                 replica_note=design.replica_note.format(noun=t["noun"], attribute=d["attribute"],
                                                         answer=design.answers[0], p="…"),
                 examples=[ExamplePrompt(condition=CONDITION_LABELS[r.condition], prompt=r.prompt)
                           for r in example.itertuples()])


def tokens(table: pd.DataFrame, answers) -> Tokens:
    """The section of :func:`rmbook.chapters.blinding.scores.answer_tokens_many`'s table."""
    single = table.groupby("model", sort=False)["n_tokens"].max().eq(1)
    return Tokens(table=table, answers=list(answers), one_token=list(single[single].index),
                  several_tokens=list(single[~single].index))


def scoring(runs: dict) -> Scoring:
    """The section of the scored models (``runs``: model -> :class:`~rmbook.chapters.blinding.scores.ModelScores`):
    the unusable ones, and the first condition-4 prompt of the usable ones."""
    usable = [r.table for r in runs.values() if r.usable]
    table = pd.concat(usable, ignore_index=True) if usable else pd.DataFrame(columns=["condition"])
    cf = table[table["condition"] == "counterfactual"]
    first = cf.iloc[0] if len(cf) else {"model": None, "template": None, "prompt": None}
    return Scoring(unusable=[Unusable(model=m, mean_mass=r.mean_mass) for m, r in runs.items() if not r.usable],
                   example_model=first["model"], example_template=first["template"], example_prompt=first["prompt"])


def behaviour(beh: pd.DataFrame) -> Behaviour:
    """The section of :func:`rmbook.chapters.blinding.analysis.behaviour`."""
    return Behaviour(table=beh)


def verdicts(counted: dict) -> Verdicts:
    """The section of :func:`rmbook.chapters.blinding.analysis.verdict_counts`."""
    main, per_axis = counted["main"], counted["per_axis"]
    return Verdicts(per_model=[ModelVerdicts(model=m, rows=g) for m, g in main.groupby("model", sort=False)],
                    n_models=main["model"].nunique(),
                    counts={c: {v: counted["counts"][c].get(v, 0) for v in VERDICTS} for c in counted["counts"]},
                    backfires=counted["backfires"], n_axis_cells=len(per_axis))


def effects(table: pd.DataFrame) -> Effects:
    """The section of :func:`rmbook.chapters.blinding.disparity`'s ``effects``."""
    informed = table[table["condition"] == "informed"]
    top = informed.loc[informed["effect"].abs().groupby(informed["model"], sort=False).idxmax()]
    return Effects(table=table, largest=top)


def rms(prefs: pd.DataFrame) -> Rms:
    """The section of :func:`rmbook.chapters.blinding.analysis.rm_preferences`."""
    return Rms(table=prefs, models=list(dict.fromkeys(prefs["model"])))


def points(table: pd.DataFrame, *, min_template_sd: float = 0.05, copy_share: float = 0.95) -> Points:
    """The section of :func:`rmbook.chapters.blinding.analysis.paper_points` (with the thresholds it was given)."""
    judged = table.dropna(subset=["instruction"])
    return Points(rows=table, min_template_sd=min_template_sd, copy_share=copy_share, n_judged=len(judged),
                  n_instruction_replicates=int(judged["instruction_point_replicates"].astype(bool).sum()),
                  n_replica_replicates=int(judged["replica_point_replicates"].fillna(False).astype(bool).sum()))


def chapter_results(runs: dict, setup: Setup, tokens: Tokens, scoring: Scoring, behaviour: Behaviour, res: dict,
                    effects: Effects, verdicts: Verdicts, points: Points, rms: Rms) -> BlindingResults:
    """The chapter's results from its sections (``res``: :func:`rmbook.chapters.blinding.disparity`)."""
    table = pd.concat([r.table for r in runs.values() if r.usable], ignore_index=True)
    change = res["change"]
    summary = change[(change["axis"] == "all axes") & (change["measure"] == "gap")]
    examples = table[table["condition"] == "counterfactual"].drop_duplicates(["model", "template"])
    return BlindingResults(
        models=list(runs), setup=setup, usable={m: r.usable for m, r in runs.items()},
        mean_mass={m: r.mean_mass for m, r in runs.items()}, reward_kinds={m: r.reward_kind for m, r in runs.items()},
        tokens=tokens, scoring=scoring, behaviour=behaviour, disparity=res["by_axis"], change=change,
        effects=effects, verdicts=verdicts, contrast=res["contrast"], points=points, rms=rms,
        summary=summary[SUMMARY_COLUMNS], counterfactual_examples=examples[EXAMPLE_COLUMNS])
