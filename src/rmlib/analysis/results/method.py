"""The method chapter's results: what one sweep found (its best and worst token), the round-trip audit of each
model's vocabulary, and the id-exact vs paper-mode demo (how often the two ways of scoring a token disagree)."""
from __future__ import annotations

import pandas as pd

from rmlib.storage import ChapterResults, Num, Section, Table

__all__ = ["ModesDemo", "MethodResults", "chapter_results"]


class ModesDemo(Section):
    """Token ids scored both id-exact and in the paper's mode (decode, then re-tokenise), on one model."""

    model: str
    untrained_head: bool
    n_ids: int
    share_scores_differ: Num
    n_round_trip_changed: int
    paper_n_bos_median: Num
    r_modes: Num  # correlation of the two modes' scores


class MethodResults(ChapterResults):
    CHAPTERS = ("method",)

    models: list[str]
    reward_kinds: dict[str, str]
    prompts: list[str]
    n_tokens: int  # tokens in the first model's sweep of the first prompt
    best_token: str
    best_reward: float
    worst_token: str
    worst_reward: float
    audit: Table
    demo: ModesDemo


def chapter_results(models: list[str], prompts: list[str], sweeps: pd.DataFrame, one: pd.DataFrame, ext: dict,
                    audit: pd.DataFrame, demo_model: str, demo, both: pd.DataFrame, diff: dict) -> MethodResults:
    """The chapter's results: ``one`` is the first sweep, ``ext`` its :func:`~rmlib.analysis.method.extremes`,
    ``demo``/``both``/``diff`` the mode comparison (:func:`~rmlib.analysis.method.compare_modes`,
    :func:`~rmlib.analysis.method.mode_differences`)."""
    best, worst = ext["best"], ext["worst"]
    return MethodResults(
        models=models, reward_kinds=sweeps.groupby("model")["reward_kind"].first().to_dict(), prompts=prompts,
        n_tokens=len(one), best_token=best.text, best_reward=best.reward, worst_token=worst.text,
        worst_reward=worst.reward, audit=audit.drop(columns=["examples (id, decoded, re-encoded)"]),
        demo=ModesDemo(model=demo_model, untrained_head=bool(demo.untrained_head), n_ids=len(both),
                       share_scores_differ=diff["share_diff"], n_round_trip_changed=int((~both.round_trip_ok).sum()),
                       paper_n_bos_median=both.n_bos.median(), r_modes=diff["r_modes"]))
