"""How the claims of the ICLR 2026 paper (value biases inherited from pretraining) are judged from the chapters'
numbers: the Big Two and MFD2 panels by direction and attainable significance, the three-way interaction with models
as replicates, and durability run by run. One evaluate function per claim, returning its parts."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.claims.evidence import Evidence, untestable
from rmbook.chapters.claims.evidence import evaluate_part as _part
from rmbook.chapters.claims.rules import ALPHA, MULTIPLE, Part, bh_floor, said, share_outcome, test_outcome

__all__ = ["BIG_TWO_SIGNS", "big_two", "mfd2", "three_way", "implicit", "ablation", "durability"]


# The claimed sign of each Big Two panel's Gemma − Llama median-rank difference (a lower rank = ranked higher). Llama
# RMs prefer agency: under positive prompts they rank it higher (difference > 0); under negative prompts ("the worst
# thing") a preferred category is ranked *lower* as the worst answer, so the sign turns round. Communion mirrors it.
BIG_TWO_SIGNS = {("Agency", "positive"): +1, ("Agency", "negative"): -1,
                 ("Communion", "positive"): -1, ("Communion", "negative"): +1}


def _floor_text(e: Evidence, summary, k: int = 1) -> tuple[float, dict]:
    """The smallest FDR-adjusted p a panel can reach with this many models and panels (``k`` panels at the floor),
    and the fields of the clause that says so (the ``floor`` macro); ``summary`` is a family summary's node (e.g.
    ``results["published"]``)."""
    raw, m = summary.min_attainable_p, summary.n_panels
    per_family = summary.models_per_family
    n = [per_family[f] for f in per_family.keys()]
    k = min(k, m)  # with fewer panels than k, all of them at the floor
    # no panels: no test, and nothing below 1 is attainable
    floor = e.derive(f"smallest FDR-adjusted p with {k} panel(s) at the floor", bh_floor(raw, m, k) if m else 1.0)
    return floor, {"n_models": n, "raw": raw, "n_panels": m, "floor": floor, "k": k}


def big_two(e: Evidence) -> list[Part]:
    def category(cat):
        def fn():
            published = e.of("big_two").results["published"]
            rows = []
            for val in ("positive", "negative"):
                panel = published.panels.where(category=cat, valence=val)
                diff, p = panel.difference, panel.p_fdr
                rows.append((val, diff, p, diff * BIG_TWO_SIGNS[(cat, val)] > 0))
            k = sum(right and p < ALPHA for _, _, p, right in rows)
            against = sum((not right) and p < ALPHA for _, _, p, right in rows)
            floor, floor_text = _floor_text(e, published)
            lean = ("both" if all(r[-1] for r in rows) else "neither" if not any(r[-1] for r in rows) else "one")
            panels = [{"valence": val, "difference": diff, "p_fdr": p,
                       "claimed": "positive" if BIG_TWO_SIGNS[(cat, val)] > 0 else "negative"}
                      for val, diff, p, _ in rows]
            return (share_outcome(k, len(rows), against=against), said("big_two", lean=lean, panels=panels, at=floor_text),
                    {"floor": floor})
        return fn

    return [_part("Llama RMs rank agency higher (positive prompts; lower under negative ones)", e,
                  category("Agency")),
            _part("Gemma RMs rank communion higher (positive prompts; lower under negative ones)", e,
                  category("Communion"))]


def _foundation_directions(e: Evidence, panels) -> dict:
    """The fields of a clause (the ``directions`` macro): who ranks which foundation higher under positive prompts,
    and how many foundations' family differences turn round under negative prompts (a difference in what the RMs
    value should: the favoured foundation is ranked lower as 'the worst thing'). ``panels``: the foundation ×
    valence panels' node."""
    by = {(r.foundation, r.valence): r.difference for r in panels}
    found = sorted({f for f, _ in by})
    pos, neg = ({f: by.get((f, v)) for f in found} for v in ("positive", "negative"))
    mirrored = [f for f in found if pos[f] is not None and neg[f] is not None and pos[f] * neg[f] < 0]
    gemma = [f for f in found if pos[f] is not None and pos[f] < 0]
    llama = [f for f in found if pos[f] is not None and pos[f] > 0]
    return {"gemma": gemma, "llama": llama, "mirrored": mirrored,
            "n_mirrored": e.derive("foundations that turn round", len(mirrored)),
            "n_foundations": e.derive("foundations", len(found))}


def _significant_foundations(panels, foundation_of) -> list[str]:
    """The foundations with at least one panel significant after FDR (``foundation_of``: a panel -> its foundation):
    "several foundations" counts foundations, so one foundation significant under both valences is one."""
    return sorted({foundation_of(r) for r in panels if r.p_fdr < ALPHA})


def mfd2(e: Evidence) -> list[Part]:
    # "Differ along several foundations" names no direction per foundation, so failing to find a difference is
    # not evidence of none: short of MULTIPLE foundations with a significant panel the part is not established,
    # never fails.
    def pooled():
        pooled = e.of("moral_foundations").by_foundation
        k, n, raw = pooled.n_significant_fdr, pooled.n_panels, pooled.n_significant_raw
        found = _significant_foundations(pooled.panels, lambda r: r.foundation)
        n_found = e.derive("foundations with a panel significant after FDR", len(found))
        floor, floor_text = _floor_text(e, pooled, k=MULTIPLE)
        directions = _foundation_directions(e, pooled.panels)
        return ("holds" if n_found >= MULTIPLE else "not established",
                said("mfd2_pooled", n_significant=k, n_panels=n, n_significant_raw=raw, directions=directions,
                     foundations=found, n_found=n_found, at=floor_text), {"floor": floor})

    def split():
        published = e.of("moral_foundations").results["published"]
        k, n = published.n_significant_fdr, published.n_panels
        found = _significant_foundations(published.panels, lambda r: r.category.split(".")[0])
        n_found = e.derive("foundations with a virtue or vice panel significant after FDR", len(found))
        floor, floor_text = _floor_text(e, published, k=MULTIPLE)
        return ("holds" if n_found >= MULTIPLE else "not established",
                said("mfd2_split", n_significant=k, n_panels=n, foundations=found, n_found=n_found, at=floor_text),
                {"floor": floor})

    why = "'several foundations differ' names no direction per foundation, and no test here shows foundations alike"
    return [_part("several foundations differ by base family", e, pooled, one_sided=why),
            _part("the same with virtue and vice apart", e, split, context=True, one_sided=why)]


def three_way(e: Evidence) -> list[Part]:
    def models():
        t = e.of("big_two").three_way_models
        d, p, floor, sign, na, nb = t.difference, t.p, t.min_attainable_p, t.claimed_sign, t.n_a, t.n_b
        return (test_outcome(p, d * sign > 0, floor),
                said("three_way_models", difference=d, p=p, n_a=na, n_b=nb, floor=floor), {"floor": floor})

    def mixed():
        t = e.of("big_two").three_way
        term, est, p = t.term, t.estimate, t.p
        # With treatment coding (Gemma, Agency, negative as references) the term's estimate is the model-level
        # contrast above with its sign: positive is the claimed direction.
        return test_outcome(p, est > 0), said("three_way_mixed", term=term.replace("*", "×"), estimate=est, p=p)
    return [_part("family × category × valence (Big Two), models as the replicates", e, models),
            _part("the authors' mixed model, prompts as replicates", e, mixed, context=True)]


def implicit(e: Evidence) -> list[Part]:
    def fn():
        panel = e.of("implicit_rewards").mwlr_gemma_llama
        model, g, p = panel.model, panel.hedges_g, panel.p_fdr
        return test_outcome(p, g > 0), said("implicit", model=model, hedges_g=g, p_fdr=p)
    return [untestable("the paper's LMs (Gemma-2, Llama-3)", "needs their log-probs (about 2 GB on a model hub) "
                        "or the models on a GPU"),
            _part("same method on the embedded LMs (Gemma-3 vs SmolLM2, a Llama-architecture model)", e, fn,
                  context=True, support="replication")]


def _trained_power(e: Evidence) -> dict:
    """Why the RMs trained here are context, not evidence (the fields of the ``trained_power`` macro): their
    held-out accuracy at the final checkpoints and the number of runs (tiny RMs on a few hundred pairs, trained on 2
    CPU cores, are weak teachers of any claim)."""
    metrics = pd.DataFrame([(m.run, m.step, m.accuracy) for m in e.of("finetuning").metrics],
                           columns=["run", "step", "accuracy"])
    final = metrics.sort_values("step").groupby("run").tail(1)
    lo = e.derive("lowest final held-out accuracy", float(final["accuracy"].min()))
    hi = e.derive("highest final held-out accuracy", float(final["accuracy"].max()))
    return {"low": lo, "high": hi, "n_runs": e.derive("trained runs", len(final))}


def _runs_outcome(n_held: int, n: int, n_failed: int) -> str:
    """A claim over several published runs, judged by the share rule with the runs as its units: each run is one
    run without replicates, judged by the order of its base families at its final checkpoint, so a run holds or
    fails and none is unclear. No single run, the largest one included, decides the claim alone (the page names
    the run that flips)."""
    return share_outcome(n_held, n, against=n_failed)


def ablation(e: Evidence) -> list[Part]:
    def published():
        d = e.of("finetuning").durability.published
        n_failed, largest, largest_holds = d.final_n_failed, d.final_largest_run, d.final_largest_run_holds
        k, n, failed = d.final_claimed_holds, d.final_n, d.final_failed_runs
        return (_runs_outcome(k, n, n_failed),
                said("ablation_published", n_held=k, n_runs=n, failed=failed, any_failed=bool(failed),
                     largest=largest, largest_holds=largest_holds))

    def ours():
        effect = e.of("finetuning").base_effect
        k, n = effect.n_prompts_significant, effect.n_prompts
        # a one-way ANOVA over seeds names no direction: a prompt where it is not significant is unclear, and
        # none can count against the claim
        return (share_outcome(k, n, against=0), said("ablation_ours", alpha=ALPHA, n_significant=k, n_prompts=n,
                                          power=_trained_power(e)))

    return [_part("published runs, identical data per run", e, published),
            _part("RMs trained here", e, ours, context=True, support="replication",
                  one_sided="a one-way ANOVA of the gap on the base names no direction")]


def durability(e: Evidence) -> list[Part]:
    def published():
        d = e.of("finetuning").durability.published
        held, n, n_failed = d.n_runs_held, d.n_runs_judged, d.n_runs_failed
        k, m = d.checkpoints_claimed_holds, d.checkpoints_n
        return (_runs_outcome(held, n, n_failed),
                said("durability_published", n_held=held, n_runs=n, n_checkpoints_held=k, n_checkpoints=m))

    def largest():
        # "as data grow" is also a question about one run: the largest data size. It is one run among the runs
        # above, so it is named on the page as context and counts there once, as one unit: a part of its own
        # counted it twice and made the verdict depend on which run failed (#63 item 2).
        d = e.of("finetuning").durability.published
        run, holds = d.largest_run, d.largest_run_holds
        if run is None:
            return "untestable", "no published run with several checkpoints has a data size"
        flip = d.runs_judged.where(run=run).flip_step if not holds else None
        return ("holds" if holds else "fails"), said("durability_largest", largest=run, largest_holds=holds,
                                                      flip_step=flip)

    def seeds():
        ours = e.of("finetuning").durability.ours
        exists, n, w = ours.modal_order_exists, ours.n_seeds, ours.kendall_w
        if not exists:
            n_orders = ours.n_distinct_orders
            return "not established", said("durability_no_order", n_seeds=n, n_orders=n_orders, kendall_w=w,
                                            power=_trained_power(e))
        k = ours.n_seeds_modal_order
        # every seed gives an order of the bases, the most common one or another: none is unclear
        return share_outcome(k, n, against=n - k), said("durability_seeds", n_modal=k, n_seeds=n, kendall_w=w,
                                         power=_trained_power(e))

    return [_part("published runs keep the order to their final checkpoint", e, published),
            _part("the largest data size keeps it (one of the runs above)", e, largest, context=True),
            _part("our RMs keep one order across seeds", e, seeds, context=True, support="replication")]
