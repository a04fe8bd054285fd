"""Sentences for the fine-tuning chapter: training, evaluation, the base imprint, the source ablation, trajectories
and accuracy vs variance, each from what :mod:`rmlib.analysis.finetuning` returned."""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["training_markdown", "evaluation_markdown", "imprint_markdown", "ablation_markdown",
           "trajectory_markdown", "quantity_markdown", "accuracy_variance_markdown",
           "published_durability_markdown", "seed_orders_markdown", "step_orders_markdown"]


def training_markdown(n_runs: int, n_seeds: int, n_bases: int, same_data: bool, main: pd.DataFrame, batch_size: int,
                      n_pairs: int, max_len: int) -> str:
    """Whether the bases saw the same data (one data hash per seed), and how the main runs' loss fell."""
    return (
        f"{n_runs} runs. Within each of the {n_seeds} seed(s), all {n_bases} bases trained on "
        f"{'**the same** data (one data hash)' if same_data else '**different** data (check the sources)'}, "
        f"{int(main['steps'].iloc[0])} steps of {batch_size} pairs from {n_pairs} pairs. The mean training loss of these "
        f"main runs fell from {main['first_loss'].mean():.3f} in the first quarter of the steps to "
        f"{main['last_loss'].mean():.3f} in the last; {main['share_truncated'].mean():.0%} of the pairs needed truncation "
        f"at {max_len} tokens.")


def evaluation_markdown(final: pd.DataFrame, kinds: list[str]) -> str:
    """The range of final held-out accuracy against chance, on how many test pairs, and the reward kinds shown."""
    lo, hi = int(final["n_test"].min()), int(final["n_test"].max())
    n_test_text = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return (f"Final held-out accuracy ranges from {final['accuracy'].min():.2f} to {final['accuracy'].max():.2f} "
            f"(chance is 0.50) on {n_test_text} held-out pairs per run. "
            f"Reward kinds in this chapter: {', '.join(kinds)}.")


def imprint_markdown(agg: pd.DataFrame, base_anova: pd.DataFrame, spread: pd.Series, first: str, second: str) -> str:
    """How many (base, prompt) cells keep their base LM's order, how far the bases spread, and the per-prompt ANOVA
    of the base (or why there is none: one seed)."""
    if len(base_anova):
        ci_note = ("The intervals are t intervals across seeds. " + " ".join(
            f"Under the {r.prompt_label} prompt the bases differ with F({r.df}) = {r.F:.2f}, p = {r.p:.2g}, "
            f"η² = {r.eta_sq:.2f}." for r in base_anova.itertuples()))
    else:
        ci_note = "With one seed per base there is no across-seed interval or test: add seeds to SEEDS to get them."
    return (
        f"The gap is *{first}* minus *{second}*. In {int(agg['same_sign_as_base'].sum())} of {len(agg)} (base, prompt) "
        f"cells the trained RM orders the two categories the same way as its base LM. Across bases trained on identical "
        f"data, the RMs' mean gaps spread over "
        f"{', '.join(f'{v:.3f} under the {k} prompt' for k, v in spread.items())}. {ci_note}")


def ablation_markdown(by_data: pd.Series, by_base: pd.Series, source_anova: pd.DataFrame, base_anova: pd.DataFrame,
                      first_base: str) -> str:
    """Does the data source move the gap more than the base? Spreads across sources vs across bases, and the two
    ANOVAs' effect sizes side by side where both exist."""
    msg = "; ".join(f"Under the {k} prompt the mean gap spreads {by_data[k]:.3f} across sources vs {by_base[k]:.3f} "
                    f"across bases" for k in by_data.index if k in by_base.index)
    if len(source_anova) and len(base_anova):
        both = source_anova.merge(base_anova, on="prompt_label", suffixes=("_source", "_base"))
        msg += ". " + ". ".join(
            f"Under the {r.prompt_label} prompt the data source explains η² = {r.eta_sq_source:.2f} "
            f"(p = {r.p_source:.2g}) of the gap's variance for {first_base}, the base η² = {r.eta_sq_base:.2f} "
            f"(p = {r.p_base:.2g}) on identical data" for r in both.itertuples())
    return f"{msg}. The larger share names the stronger influence in this run; with few seeds, read the p-values before the ordering."


def trajectory_markdown(moved: pd.DataFrame, q_text: str, uf_trend: pd.Series) -> str:
    """How far our gaps moved over training, the data-quantity sentence, and the published UltraFeedback change."""
    return (
        f"From the first to the last saved checkpoint our gaps moved by {moved['gap'].abs().mean():.3f} on average "
        f"(largest {moved['gap'].abs().max():.3f}). {q_text}In the published files, from the smallest to the largest "
        f"UltraFeedback set, Agency minus Communion at the final checkpoint changed by "
        + ", ".join(f"{v:+.1f} ({k})" for k, v in uf_trend.items())
        + " median-rank points. Whether the families keep their order is the next section's question.")


def quantity_markdown(q_gap: pd.DataFrame, q_rho: pd.Series) -> str:
    """The gap's Spearman correlation with the number of training pairs (``q_rho``: per prompt), or that no quantity
    ablation ran (one training-set size)."""
    if q_gap["n_pairs"].nunique() < 2:
        return "No data-quantity ablation was run (`QUANTITY_PAIRS` is empty). "
    return (f"Over {q_gap['n_pairs'].nunique()} training-set sizes ({', '.join(map(str, sorted(q_gap['n_pairs'].unique())))} "
            f"pairs) the gap's Spearman correlation with the number of pairs is "
            + ", ".join(f"{v:.2f} under the {k} prompt" for k, v in q_rho.items()) + ". ")


def accuracy_variance_markdown(metrics: pd.DataFrame, rho: float, p: float) -> str:
    """Spearman's rho of accuracy and whitened variance, and whether the most accurate checkpoint is also the
    highest-variance one."""
    text = (f"Across {len(metrics)} checkpoints, Spearman's ρ between accuracy and whitened reward variance is "
            f"{rho:.2f} (p = {p:.2g}). " if not np.isnan(rho) else "Too few distinct checkpoints for a correlation. ")
    best_acc = metrics.loc[metrics["accuracy"].idxmax()]
    best_var = metrics.loc[metrics["reward_var_whitened"].idxmax()]
    text += (f"The most accurate checkpoint ({best_acc['model']}, accuracy {best_acc['accuracy']:.2f}) has whitened "
             f"variance {best_acc['reward_var_whitened']:.3f}; ")
    return text + ("it is also the highest-variance one." if best_acc["model"] == best_var["model"] else
                   f"the highest-variance one ({best_var['model']}) has {best_var['reward_var_whitened']:.3f} at "
                   f"accuracy {best_var['accuracy']:.2f}.")


def _run_verdict(r: dict) -> str:
    """'ultrafeedback 100k BT: flipped at step 8000 and stayed flipped to its final checkpoint' and the like."""
    if r["holds"]:
        return f"{r['run']}: holds" + (f" (a flip at step {r['flip_step']} reverted)" if r["flip_step"] is not None
                                       else "")
    if r["persistent"]:
        return (f"{r['run']}: flipped at step {r['flipped_from']} and stayed flipped to its final checkpoint, "
                f"so it fails")
    return f"{r['run']}: flipped at its final checkpoint, so it fails"


def published_durability_markdown(durable: dict, runs: pd.DataFrame) -> str:
    """Does Llama stay below Gemma in the published runs (``durable``:
    :func:`rmlib.analysis.durability.published_durability`), judged run by run (a run whose order is flipped at its
    final checkpoint fails), whether the largest data size holds, which runs change their family order, and the
    orders across data sizes. The pooled checkpoint count is given as context only: it lets long runs that hold
    outvote a run that ends flipped."""
    multi = runs[runs["checkpoints"] > 1]
    flipped = multi[multi["pair_flips"] > 0]
    sizes = durable["across_sizes"]
    largest = (f"The largest data size, {durable['largest_run']}, "
               + ("holds." if durable["largest_run_holds"] else "**fails**: that is the case the claim is about.")
               if durable["largest_run"] else "")
    return (
        f"Judged run by run (a run fails when Llama's gap is not below Gemma's at its final checkpoint, whether the "
        f"flip came earlier and stayed or only at the end), {durable['n_runs_held']} of {durable['n_runs_judged']} "
        f"published runs with several checkpoints hold: "
        + "; ".join(_run_verdict(r) for r in durable["runs_judged"]) + f". {largest} "
        f"At the final checkpoint, {durable['final_claimed_holds']} of {durable['final_n']} runs (GRM included) keep "
        f"the order" + (f"; {', '.join(durable['final_failed_runs'])} "
                               f"{'does' if len(durable['final_failed_runs']) == 1 else 'do'} not"
                               if durable["final_failed_runs"] else "")
        + f". Pooled over runs, the order holds at {durable['checkpoints_claimed_holds']} of "
        f"{durable['checkpoints_n']} checkpoints, a count that lets the long runs that hold outvote one that ends "
        f"flipped, so it is context, not the verdict. "
        f"{len(flipped)} of {len(multi)} runs change the order of their base families between the first and a later "
        "checkpoint" + ("".join(f"; {r.run}: {r.first_order} → {r.final_order}" for r in flipped.itertuples()))
        + f". Across the UltraFeedback sizes, the final-checkpoint orders are "
        + "; ".join(f"{k}k: {v}" for k, v in sizes["orders"].items())
        + f" (Kendall's W = {sizes['kendall_w']:.2f}; {sizes['n_pair_flips']} of {sizes['n_pairs']} family pairs flip "
        "against the smallest set).")


def _seed_sentence(r) -> str:
    """One prompt's across-seed order: the modal order and how many seeds give it, or that there is none (every
    seed's order differs, or two orders tie) -- never '1 of 3 seeds give the most common order'."""
    if r.modal_order_exists:
        head = (f"under the {r.prompt_label} prompt {r.n_seeds_modal_order} of {r.n_seeds} seeds give the most "
                f"common order, {r.modal_order}")
    elif r.n_distinct_orders == r.n_seeds:
        head = (f"under the {r.prompt_label} prompt the {r.n_seeds} seeds give {r.n_distinct_orders} different orders, "
                "so there is no most common order")
    else:
        head = (f"under the {r.prompt_label} prompt the {r.n_seeds} seeds give {r.n_distinct_orders} orders, none "
                "more common than another, so there is no most common order")
    return (f"{head} (Kendall's W = {r.kendall_w:.2f}; {r.pairs_inconsistent} of {r.pairs} base pairs are not "
            "ordered alike in every seed)")


def seed_orders_markdown(seed_table: pd.DataFrame) -> str:
    """Whether the seeds order the bases alike (``seed_table``: :func:`rmlib.analysis.durability.seed_orders`), or
    that one seed cannot say."""
    if not len(seed_table):
        return ("One seed only (`SEEDS`): there is no across-seed order to compare. Add seeds to test whether "
                "the bases keep their order.")
    return "Across seeds: " + "; ".join(_seed_sentence(r) for r in seed_table.itertuples()) + "."


def step_orders_markdown(steps_rows: list[dict]) -> str:
    """Whether the first seed's run keeps its base order across checkpoints; empty when it has one checkpoint."""
    if not steps_rows:
        return ""
    return f"Across the first seed's {steps_rows[0]['n_blocks']} checkpoints: " + "; ".join(
        f"under the {r['prompt_label']} prompt Kendall's W = {r['kendall_w']:.2f}, {r['n_pair_flips']} of "
        f"{r['n_pairs']} base pairs flip against the first checkpoint" for r in steps_rows) + "."
