"""The method chapter's results: what one sweep found (its best and worst token), the round-trip audit of each
model's vocabulary, and the id-exact vs paper-mode demo (how often the two ways of scoring a token disagree). Each
section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/method/prose.md.j2``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.method.types import Extremes, RoundTrip, ModesDemo, MethodResults

__all__ = ["Extremes", "RoundTrip", "ModesDemo", "MethodResults", "extremes", "roundtrip", "modes_demo",
           "chapter_results"]


def extremes(one: pd.DataFrame, ext: dict, top_k: int) -> Extremes:
    """The section of ``one`` (one model's sweep of one prompt, from
    :func:`rmbook.chapters.method.analysis.live_sweeps`) and ``ext``
    (:func:`rmbook.chapters.method.analysis.extremes`)."""
    best, worst, first = ext["best"], ext["worst"], one.iloc[0]
    return Extremes(model=first["model"], label=first["model_label"], prompt=first["prompt"],
                    reward_kind=first["reward_kind"], n_tokens=len(one), top_k=top_k, best_token=best.text,
                    best_reward=best.reward, worst_token=worst.text, worst_reward=worst.reward, p_best=ext["p_best"],
                    top_mass=ext["top_mass"])


def roundtrip(audit: pd.DataFrame) -> RoundTrip:
    """The section of :func:`rmbook.chapters.method.analysis.roundtrip_table`'s table."""
    worst = audit.loc[audit["share changed"].idxmax()]
    return RoundTrip(table=audit.drop(columns=["examples (id, decoded, re-encoded)"]),
                     share_min=audit["share changed"].min(), share_max=audit["share changed"].max(),
                     worst_model=worst["model"], worst_changed=int(worst["ids changed by decode→encode"]),
                     worst_checked=int(worst["ids checked"]), bos_paper=audit["leading BOS, paper mode"].tolist(),
                     bos_exact=audit["leading BOS, id-exact"].tolist())


def modes_demo(model: str, demo, both: pd.DataFrame, diff: dict) -> ModesDemo:
    """The section of :func:`rmbook.chapters.method.analysis.compare_modes` (``demo``, ``both``) and its
    :func:`~rmbook.chapters.method.analysis.mode_differences` (``diff``)."""
    return ModesDemo(model=model, untrained_head=bool(demo.untrained_head), n_ids=len(both),
                     share_scores_differ=diff["share_diff"], tolerance=diff["tol"],
                     n_round_trip_changed=int((~both.round_trip_ok).sum()), paper_n_bos_median=np.median(both.n_bos),
                     r_modes=diff["r_modes"])


def chapter_results(models: list[str], prompts: list[str], sweeps: pd.DataFrame, ext: Extremes, trip: RoundTrip,
                    demo: ModesDemo) -> MethodResults:
    """The chapter's results from its sections."""
    return MethodResults(models=models, reward_kinds=sweeps.groupby("model")["reward_kind"].first().to_dict(),
                         prompts=prompts, extremes=ext, roundtrip=trip, demo=demo)
