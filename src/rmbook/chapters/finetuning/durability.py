"""Is a base-family ordering durable? Orders of a few families compared across checkpoints, data sizes or seeds.

The ICLR 2026 paper's durability claim: as preference data grows and training goes on, RMs keep the ordering of
their base families on the Big Two (Llama-based RMs more agency-leaning than Gemma-based ones). With two or three
families a correlation over families means little, so the statistics here are made for few objects:

* the **order** at each block (checkpoint, data size, seed), written out, e.g. ``Llama < Gemma < Qwen``;
* **pairwise flips**: for each pair of families, in how many blocks the pair's order differs from a reference
  (the first block, or the majority order);
* **Kendall's W** (coefficient of concordance) of the blocks' rankings of the families: 1 when every block orders
  them alike, near 0 when orders are unrelated; and the mean **Kendall's tau** of each block's order with the
  reference order;
* whether a **claimed pair order** holds (e.g. Llama's gap below Gemma's) in each block;
* a **verdict per run** (:func:`judge_run`): a run whose claimed order is flipped at its final checkpoint fails,
  whether the flip came earlier and stayed (persistent) or only at the end. Pooling checkpoints over runs would let
  the many checkpoints of runs that hold outvote a run that ends flipped; the claim ("as data grow, the order
  stays") is about runs, each run one unit (the largest data size is named, but counts as one run like the
  others).
"""
from __future__ import annotations

from itertools import combinations
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmlib.stats import kendall_w, require_columns

__all__ = ["order_string", "family_orders", "pairwise_flips", "order_stability", "claimed_order",
           "checkpoint_gaps", "judge_run", "final_outcomes",
           "published_run_orders", "published_durability", "seed_orders", "step_orders"]


def order_string(values: pd.Series, ascending: bool = True, tol: float = 0.0) -> str:
    """'A < B < C' for a Series indexed by family (ascending values); '=' joins values within ``tol``."""
    v = values.dropna().sort_values(ascending=ascending)
    sep = " < " if ascending else " > "
    parts = [str(v.index[0])]
    for prev, (name, val) in zip(v.to_numpy()[:-1], v.iloc[1:].items()):
        parts.append((" = " if abs(val - prev) <= tol else sep) + str(name))
    return "".join(parts)


def family_orders(df: pd.DataFrame, block: Sequence[str], family: str = "family", value: str = "gap") -> pd.DataFrame:
    """The order of the families on ``value`` in each block: one row per block with ``order`` ('Llama < Gemma'),
    n_families, and one rank column per family (1 = lowest value; ties averaged)."""
    block = list(block)
    require_columns(df, [*block, family, value])
    if df.duplicated([*block, family]).any():
        raise ValueError(f"several rows per {block + [family]}: aggregate first (e.g. mean over seeds)")
    wide = df.pivot_table(index=block, columns=family, values=value, aggfunc="first")
    ranks = wide.rank(axis=1, method="average")
    out = pd.DataFrame({"order": wide.apply(order_string, axis=1), "n_families": wide.notna().sum(axis=1)})
    out = out.join(ranks.add_prefix("rank_"))
    return out.reset_index()


def pairwise_flips(wide: pd.DataFrame, reference: pd.Series) -> pd.DataFrame:
    """For each pair of families (columns of ``wide``: blocks x families, values), in how many blocks the pair is
    ordered differently from ``reference`` (a Series indexed by family). Ties count as flips of neither side.

    Returns pair ('A, B'), reference ('A < B'), n_blocks, n_flipped, flipped_blocks (the block labels).
    """
    rows = []
    fams = [f for f in wide.columns if f in reference.index]
    for a, b in combinations(fams, 2):
        ref = np.sign(reference[a] - reference[b])
        d = np.sign(wide[a] - wide[b]).dropna()
        flipped = d.index[(d != ref) & (d != 0) & (ref != 0)]
        rows.append({"pair": f"{a}, {b}", "reference": f"{a} {'<' if ref < 0 else '>' if ref > 0 else '='} {b}",
                     "n_blocks": int(d.size), "n_flipped": int(len(flipped)),
                     "flipped_blocks": [str(x) for x in flipped]})
    return pd.DataFrame(rows, columns=["pair", "reference", "n_blocks", "n_flipped", "flipped_blocks"])


def order_stability(df: pd.DataFrame, block: str, family: str = "family", value: str = "gap",
                    reference: str = "first") -> dict:
    """How stable the families' order on ``value`` is across the levels of ``block`` (checkpoints, seeds, sizes).

    ``reference`` is 'first' (the first block in sorted order: e.g. the first checkpoint) or 'majority' (each
    family's mean rank over blocks). Only families present in every block count. Returns {n_blocks, families,
    kendall_w, mean_tau (each block's order vs the reference; NaN with a single block), n_pairs, n_pair_flips (pairs
    of families whose order differs from the reference in at least one block; a tied reference pair never counts),
    n_pairs_inconsistent (pairs not ordered alike in every block, ties included: no reference needed), pair_flips
    (from :func:`pairwise_flips`), reference_order, modal_order (the most common block order; the first one on a
    tie), n_modal (blocks with that order), modal_unique (one order is strictly more common than every other: when
    all blocks' orders differ, or two orders tie for most common, there is no modal order and ``modal_order`` is
    only the first of the tied ones), n_distinct_orders, orders (block -> order)}.
    """
    if reference not in ("first", "majority"):
        raise ValueError(f"reference must be 'first' or 'majority', not {reference!r}")
    require_columns(df, [block, family, value])
    wide = df.pivot_table(index=block, columns=family, values=value, aggfunc="first").sort_index()
    wide = wide.dropna(axis=1, how="any")
    if wide.shape[1] < 2:
        raise ValueError(f"fewer than 2 families are present in every {block!r}: {list(wide.columns)}")
    ranks = wide.rank(axis=1, method="average")
    ref = wide.iloc[0] if reference == "first" else ranks.mean(axis=0)
    ref_rank = ref.rank(method="average")
    taus = [stats.kendalltau(ref_rank.to_numpy(), r.to_numpy()).statistic for _, r in ranks.iterrows()]
    flips = pairwise_flips(wide, ref)
    inconsistent = sum(np.sign(wide[a] - wide[b]).nunique() > 1 for a, b in combinations(wide.columns, 2))
    orders = {str(k): order_string(v) for k, v in wide.iterrows()}
    counts = pd.Series(list(orders.values())).value_counts(sort=False)
    modal = str(counts.idxmax())
    return {"n_blocks": int(len(wide)), "families": [str(f) for f in wide.columns],
            "kendall_w": kendall_w(ranks.to_numpy()),
            "mean_tau": float(np.nanmean(taus)) if len(wide) > 1 and not np.isnan(taus).all() else float("nan"),
            "n_pairs": int(len(flips)), "n_pair_flips": int((flips["n_flipped"] > 0).sum()),
            "n_pairs_inconsistent": int(inconsistent), "pair_flips": flips.to_dict(orient="records"),
            "reference_order": order_string(ref), "modal_order": modal, "n_modal": int(counts.max()),
            "modal_unique": bool((counts == counts.max()).sum() == 1), "n_distinct_orders": int(len(counts)),
            "orders": orders}


def claimed_order(df: pd.DataFrame, block: Sequence[str], lower: str, higher: str, family: str = "family",
                  value: str = "gap") -> pd.DataFrame:
    """In each block, does family ``lower`` have the lower ``value`` than family ``higher`` (the claimed order)?

    Returns *block, value_lower, value_higher, difference (lower - higher), holds (difference < 0), tied
    (difference == 0: neither order, as the claims' order rule has a tie); blocks missing either family are left
    out.
    """
    block = list(block)
    require_columns(df, [*block, family, value])
    wide = df.pivot_table(index=block, columns=family, values=value, aggfunc="first")
    if lower not in wide or higher not in wide:
        return pd.DataFrame(columns=[*block, "value_lower", "value_higher", "difference", "holds", "tied"])
    w = wide[[lower, higher]].dropna()
    out = pd.DataFrame({"value_lower": w[lower], "value_higher": w[higher]}, index=w.index)
    out["difference"] = out["value_lower"] - out["value_higher"]
    out["holds"] = out["difference"] < 0
    out["tied"] = out["difference"] == 0
    return out.reset_index()


def checkpoint_gaps(ranks: pd.DataFrame, first: str = "Agency", second: str = "Communion") -> pd.DataFrame:
    """The authors' checkpoint files (:func:`rmlib.data.load_checkpoint_ranks`) as one gap per run and checkpoint:
    file, data_source, quantity_k, method, base_family, model_id, checkpoint, final, gap = median rank of ``first``
    minus that of ``second`` (negative: ``first`` ranks higher, i.e. nearer rank 1)."""
    keys = ["file", "data_source", "quantity_k", "method", "base_family", "model_id", "checkpoint", "final"]
    require_columns(ranks, [*keys, "category", "median_rank"], "ranks (from load_checkpoint_ranks)")
    w = ranks.pivot_table(index=keys, columns="category", values="median_rank").reset_index()
    w.columns.name = None
    w["gap"] = w[first] - w[second]
    return w[keys + ["gap"]]


def judge_run(ok: pd.DataFrame, block: str = "checkpoint") -> dict:
    """One run's verdict on the claimed order from its per-checkpoint ``ok`` (:func:`claimed_order`: ``block``,
    holds, and tied where it has it). A run **fails** when the claimed order is turned round at its final checkpoint: a
    flip that came earlier and stayed to the end (``persistent``) or one at the final checkpoint only. A flip that
    reverts before the end is reported (``flip_step``) but does not fail the run: the claim is about where training
    ends up. A tie (the two families level) is no flip: a run tied at its final checkpoint neither holds nor fails
    (``tied``), as the claims' order rule has a tie.

    Returns holds, tied, flip_step (the first checkpoint where the order is turned round; None when never),
    flipped_from (the first checkpoint of the flipped stretch that reaches the final one; None when the final does not
    fail), persistent (the order flipped before the final checkpoint and stayed flipped to it), n_flipped,
    n_checkpoints, final_step."""
    o = ok.sort_values(block)
    held = o["holds"].astype(bool).to_numpy()
    tied = o["tied"].astype(bool).to_numpy() if "tied" in o else np.zeros(len(o), bool)
    steps = o[block].to_numpy()
    if not len(o):
        raise ValueError("no checkpoints with both families: nothing to judge")
    against = ~held & ~tied
    flipped = np.flatnonzero(against)
    tail = len(held)
    while tail > 0 and against[tail - 1]:
        tail -= 1                                   # steps[tail:] is the flipped stretch that reaches the end
    return {"holds": bool(held[-1]), "tied": bool(tied[-1]), "flip_step": int(steps[flipped[0]]) if len(flipped) else None,
            "flipped_from": int(steps[tail]) if tail < len(held) else None,
            "persistent": bool(tail < len(held) - 1), "n_flipped": int(len(flipped)), "n_checkpoints": int(len(o)),
            "final_step": int(steps[-1])}


def published_run_orders(ck: pd.DataFrame, lower: str = "Llama", higher: str = "Gemma") -> pd.DataFrame:
    """One row per published run (``ck``: :func:`checkpoint_gaps`): its checkpoints, first and final family order,
    Kendall's W and pair flips across checkpoints against the first, how often the claimed order (``lower``
    below ``higher``) holds, at all checkpoints and at the final one, and the run's verdict (:func:`judge_run`:
    holds, flip_step, flipped_from, persistent)."""
    rows = []
    for (f, src, qty, meth), g in ck.groupby(["file", "data_source", "quantity_k", "method"], sort=False):
        st = order_stability(g, "checkpoint", family="base_family", reference="first")
        ok = claimed_order(g, ["checkpoint"], lower=lower, higher=higher, family="base_family")
        verdict = judge_run(ok)
        rows.append({"run": f"{src} {qty}k {meth}", "file": f, "data_source": src, "quantity_k": qty, "method": meth,
                     "checkpoints": st["n_blocks"], "first_order": st["reference_order"],
                     "final_order": list(st["orders"].values())[-1], "kendall_w": st["kendall_w"],
                     "pair_flips": st["n_pair_flips"], "pairs": st["n_pairs"], "llama_below_gemma": int(ok["holds"].sum()),
                     "n_checkpoints": len(ok), "final_claimed": verdict["holds"],
                     **{k: verdict[k] for k in ("holds", "tied", "flip_step", "flipped_from", "persistent",
                                                "final_step")}})
    out = pd.DataFrame(rows)
    for col in ("flip_step", "flipped_from"):
        out[col] = out[col].astype("Int64")         # a missing step stays missing, not a float NaN
    return out


def _step(v) -> int | None:
    """A checkpoint step as a plain int, or None when missing."""
    return None if pd.isna(v) else int(v)


def _largest(runs: pd.DataFrame) -> dict:
    """The run(s) at the largest data size, whether all of them hold, and whether they are tied (none fails, and one
    is level at its final checkpoint: neither holds nor fails, as the order rule has a tie): named on the page, since
    the claim says "as data grow", but counted by the claims page as one run among the runs."""
    if not len(runs):
        return {"largest_run": None, "largest_quantity_k": None, "largest_run_holds": None, "largest_run_tied": None}
    top = runs[runs["quantity_k"] == runs["quantity_k"].max()]
    holds, tied = top["holds"].astype(bool), top["tied"].astype(bool)
    return {"largest_run": "; ".join(top["run"]), "largest_quantity_k": int(top["quantity_k"].iloc[0]),
            "largest_run_holds": bool(holds.all()), "largest_run_tied": bool(tied.any() and (holds | tied).all())}


def final_outcomes(runs: pd.DataFrame) -> dict:
    """Per-run outcomes at the final checkpoint over every published run (GRM included, one checkpoint each): the
    data-source/size ablation, judged run by run like the checkpoint part. Returns final_runs (run, data_source,
    quantity_k, method, final_step, holds, tied), final_n_failed, final_failed_runs, final_n_tied (neither held nor
    failed) and the largest size's run(s)."""
    rec = [{"run": r.run, "data_source": r.data_source, "quantity_k": int(r.quantity_k), "method": r.method,
            "final_step": int(r.final_step), "holds": bool(r.holds), "tied": bool(r.tied)} for r in runs.itertuples()]
    failed = [r["run"] for r in rec if not r["holds"] and not r["tied"]]
    big = _largest(runs)
    return {"final_runs": rec, "final_n_failed": len(failed), "final_failed_runs": failed,
            "final_n_tied": sum(r["tied"] for r in rec),
            **{f"final_{k}": v for k, v in big.items()}}


def published_durability(runs: pd.DataFrame, sizes: dict) -> dict:
    """The counts behind the published durability claim, run by run (:func:`judge_run`): runs_judged (each
    multi-checkpoint run: run, file, data_source, quantity_k, method, holds, tied, flip_step, flipped_from, persistent,
    n_checkpoints), n_runs_judged, n_runs_held, n_runs_failed, n_runs_tied (a tie at the final checkpoint: neither
    held nor failed), failed_runs, the largest data size's run and whether it
    holds or is tied; the final-checkpoint outcomes of every run (:func:`final_outcomes`); and the pooled counts kept as
    context (final checkpoints where the order holds, checkpoints where it holds over the multi-checkpoint runs, runs
    whose order flips). ``sizes``: :func:`order_stability` across data sizes."""
    multi = runs[runs["checkpoints"] > 1]
    judged = [{"run": r.run, "file": r.file, "data_source": r.data_source, "quantity_k": int(r.quantity_k),
               "method": r.method, "holds": bool(r.holds), "tied": bool(r.tied), "flip_step": _step(r.flip_step),
               "flipped_from": _step(r.flipped_from), "persistent": bool(r.persistent),
               "n_checkpoints": int(r.n_checkpoints)} for r in multi.itertuples()]
    failed = [r["run"] for r in judged if not r["holds"] and not r["tied"]]
    return {"final_claimed_holds": int(runs["final_claimed"].sum()), "final_n": int(len(runs)),
            "checkpoints_claimed_holds": int(multi["llama_below_gemma"].sum()),
            "checkpoints_n": int(multi["n_checkpoints"].sum()), "runs_with_flip": int((multi["pair_flips"] > 0).sum()),
            "n_runs": int(len(multi)), "runs_judged": judged, "n_runs_judged": len(judged),
            "n_runs_held": sum(r["holds"] for r in judged), "n_runs_failed": len(failed),
            "n_runs_tied": sum(r["tied"] for r in judged), "failed_runs": failed,
            **_largest(multi), **final_outcomes(runs), "across_sizes": sizes, "runs": runs.to_dict("records")}


def seed_orders(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per prompt with two or more seeds: whether the seeds (complete replicates) order the bases alike: the most
    common order, how many seeds give it, Kendall's W, and base pairs not ordered alike in every seed.

    When no order is strictly more common than the others (e.g. all seeds' orders differ), there is no modal order:
    modal_order_exists is False and modal_order and n_seeds_modal_order are missing, so that "1 of 3 seeds give the
    most common order" cannot be read as a share of agreeing seeds; n_distinct_orders says how many orders there are."""
    rows = []
    for label, g in gaps.groupby("prompt_label"):
        if g["seed"].nunique() < 2:
            continue
        st = order_stability(g, "seed", family="base_model", reference="majority")
        exists = st["modal_unique"]
        rows.append({"prompt_label": label, "n_seeds": st["n_blocks"], "modal_order_exists": exists,
                     "modal_order": st["modal_order"] if exists else None,
                     "n_seeds_modal_order": st["n_modal"] if exists else None,
                     "n_distinct_orders": st["n_distinct_orders"], "kendall_w": st["kendall_w"],
                     "pairs_inconsistent": st["n_pairs_inconsistent"], "pairs": st["n_pairs"]})
    out = pd.DataFrame(rows, columns=["prompt_label", "n_seeds", "modal_order_exists", "modal_order",
                                      "n_seeds_modal_order", "n_distinct_orders", "kendall_w", "pairs_inconsistent",
                                      "pairs"])
    out["n_seeds_modal_order"] = out["n_seeds_modal_order"].astype("Int64")
    return out


def step_orders(gaps: pd.DataFrame) -> list[dict]:
    """Per prompt with two or more checkpoints: whether one run keeps its base order across steps (Kendall's W and
    pair flips against the first checkpoint)."""
    rows = []
    for label, g in gaps.groupby("prompt_label"):
        if g["step"].nunique() > 1:
            st = order_stability(g, "step", family="base_model", reference="first")
            rows.append({"prompt_label": label, **{k: st[k] for k in ("n_blocks", "kendall_w", "n_pair_flips",
                                                                        "n_pairs", "reference_order")}})
    return rows
