"""The blinding chapter's results: per model, whether hiding or neutralising the identity descriptor in a decision
prompt shrinks the gap in P(yes) between descriptors, with bootstrap intervals, verdict counts per condition, and
what the RMs prefer."""
from __future__ import annotations

import pandas as pd

from rmlib.storage import ChapterResults, Num, Table

__all__ = ["BlindingResults", "chapter_results"]

SUMMARY_COLUMNS = ["model", "condition", "informed", "value", "reduction", "relative", "ci_low", "ci_high", "verdict"]
EXAMPLE_COLUMNS = ["model", "template", "prompt", "replica_answer", "replica_p"]


class BlindingResults(ChapterResults):
    CHAPTERS = ("blinding",)

    models: list[str]
    missing: dict[str, str]  # model id -> why it could not be scored here
    usable: dict[str, bool]
    mean_mass: dict[str, Num]  # mean p(Yes) + p(No) on the blinded prompts (None for RMs)
    reward_kinds: dict[str, str]
    dtype: str
    n_templates: int
    n_descriptors: int
    axes: list[str]
    domains: list[str]
    answers: list[str]
    tokens: Table
    behaviour: Table
    disparity: Table  # the largest gap between descriptors, per model, condition and axis
    change: Table
    effects: Table
    verdicts: dict[str, dict[str, int]]  # condition -> verdict -> number of models
    backfires: Table
    contrast: Table
    paper_points: Table
    rm_preferences: Table
    summary: Table  # the gap over all axes, per model and condition, with its change and verdict
    counterfactual_examples: Table


def chapter_results(design, runs: dict, missing: dict, dtype: str, tokens: pd.DataFrame, beh: pd.DataFrame,
                    res: dict, verdicts: dict, points: pd.DataFrame, prefs: pd.DataFrame) -> BlindingResults:
    """The chapter's results from what its cells computed (``res``: :func:`rmlib.analysis.blinding.disparity`;
    ``verdicts``: :func:`~rmlib.analysis.blinding.verdict_counts`)."""
    table = pd.concat([r.table for r in runs.values() if r.usable], ignore_index=True)
    change = res["change"]
    summary = change[(change["axis"] == "all axes") & (change["measure"] == "gap")]
    examples = table[table["condition"] == "counterfactual"].drop_duplicates(["model", "template"])
    return BlindingResults(
        models=list(runs), missing=missing, usable={m: r.usable for m, r in runs.items()},
        mean_mass={m: r.mean_mass for m, r in runs.items()}, reward_kinds={m: r.reward_kind for m, r in runs.items()},
        dtype=dtype, n_templates=len(design.templates), n_descriptors=len(design.descriptors),
        axes=list(dict.fromkeys(design.descriptors["axis"])), domains=list(dict.fromkeys(design.templates["domain"])),
        answers=list(design.answers), tokens=tokens, behaviour=beh, disparity=res["by_axis"], change=change,
        effects=res["effects"], verdicts=verdicts["counts"], backfires=verdicts["backfires"],
        contrast=res["contrast"], paper_points=points, rm_preferences=prefs, summary=summary[SUMMARY_COLUMNS],
        counterfactual_examples=examples[EXAMPLE_COLUMNS])
