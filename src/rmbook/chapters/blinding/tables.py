"""The chapter's widest table folded into a few named columns, so that it fits the page
(:mod:`rmbook.report.compact_tables`); the analysis and the results keep every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.compact_tables import MISSING, any_missing, cells, number_text, with_extra
from rmlib.stats import require_columns

__all__ = ["answering_view"]


def answering_view(behaviour: pd.DataFrame) -> pd.DataFrame:
    """blinding: how each model answers (:func:`rmbook.chapters.blinding.analysis.behaviour`), in nine columns: the mean
    P(yes) + P(no) with its minimum, the blinded replica's P(yes) ± its SD over templates, decisiveness, the mean
    shift when told to ignore the attribute (with the mean absolute shift), and agreement with the replica informed
    and counterfactual (with the replica answer's mean probability)."""
    require_columns(behaviour, ["model", "reward_kind", "n_prompts"], "behaviour")
    out = pd.DataFrame({"model": behaviour["model"], "reward kind": behaviour["reward_kind"],
                        "prompts": behaviour["n_prompts"].map(number_text)})
    out["P(yes) + P(no) (min)"] = cells(behaviour, with_extra, "yes_no_mass", "yes_no_mass_min")
    out["blinded P(yes) ± SD over templates"] = cells(
        behaviour, lambda m, s: MISSING if any_missing(m) else f"{number_text(m)} ± {number_text(s)}",
        "blinded_p_yes", "blinded_template_sd")
    out["decisiveness"] = cells(behaviour, number_text, "decisiveness")
    out["shift when told to ignore (mean |shift|)"] = cells(behaviour, with_extra, "ignore_shift", "ignore_abs_shift")
    for name in ("informed", "counterfactual"):
        out[f"agrees with the replica, {name} (its P)"] = cells(behaviour, with_extra, f"agree_{name}",
                                                                 f"replica_p_{name}")
    return out
