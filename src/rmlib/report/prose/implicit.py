"""Sentences for the implicit-rewards chapter: which LMs are base or instruct, logits vs log-probs, LM vs RM answers,
and the MFD2 valence check, each from the table an :mod:`rmlib.analysis.implicit` function returned."""
from __future__ import annotations

import pandas as pd

from rmlib.report.prose.values import describe_prompt_subset

__all__ = ["instruct_evidence_markdown", "logit_logprob_markdown", "zipf_markdown", "mfd2_valence_markdown",
           "design_prompts_markdown", "lexicon_scores_markdown"]


def _present(x) -> bool:
    """A field a sentence may mention: not missing (None or NaN, as a table read back gives it) and not empty."""
    return x is not None and not (isinstance(x, float) and x != x) and x != ""


def instruct_evidence_markdown(evidence: pd.DataFrame, both: list[str]) -> str:
    """One bullet per model with its base/instruct verdict and the evidence behind it, then whether any family has
    both kinds (``both``), which decides whether the DPO log-ratio can be computed from these models."""
    lines = [f"- **{r.model}** ({r.family}): **{r.verdict}**"
             + (f" — chat template shipped: {r.chat_template_shipped}" if _present(r.chat_template_shipped) else "")
             + (f"; GGUF name {r.gguf_name!r}" if _present(r.gguf_name) else "")
             + (f", finetune tag {r.gguf_finetune!r}" if _present(r.gguf_finetune) else "")
             + (f" (registry says {r.registry_says})" if r.registry_says != "unknown" else "")
             for r in evidence.itertuples()]
    lines.append("")
    lines.append("Families with both a base and an instruct model here: "
                 + (", ".join(both) if both else "**none**") + ". "
                 + ("So the instruct-vs-base DPO log-ratio cannot be computed from these models; it is offered for "
                    "users with such a pair on a GPU (for example `google/gemma-2-2b` and `google/gemma-2-2b-it`, via "
                    "`DPO_PAIRS`), while the defaults use the cross-family MWLR." if not both else
                    "Pass such a pair in `DPO_PAIRS` for the DPO-style log-ratio."))
    return "\n".join(lines)


def logit_logprob_markdown(within: pd.DataFrame, tau_pooled: float, n_models: int) -> str:
    """Logits and log-probs rank alike within a model (``within``: :func:`logit_logprob_agreement`); whether they
    still agree across models (``tau_pooled``) and why they need not."""
    spread = float(within["offset_spread"].max())
    min_tau = float(within["kendall_tau_logit_vs_logprob"].min())
    return (
        f"Within each model × prompt, logit − log-prob is one constant (largest spread {spread:.2g}, rounding only) and "
        f"Kendall's τ between logits and log-probs is at least {min_tau:.4f}: **the same ranking**. Pooling the top "
        f"tokens of all {n_models} models, the two orderings "
        + (f"disagree (τ = {tau_pooled:.2f}), because each model's logits carry a different offset (log-sum-exp from "
           f"{within['logsumexp'].min():.1f} to {within['logsumexp'].max():.1f}): **raw logits are not comparable "
           "across models**; use log-probs." if tau_pooled < 0.999 else
           f"agree here (τ = {tau_pooled:.2f}), only because these models' offsets happen to be close; in general "
           "raw logits are not comparable across models."))


def zipf_markdown(prompt: str, lm_zipf: float, rm_zipf: float) -> str:
    """How frequent the LMs' top first tokens are next to the RMs' top answers, and why next-token probability
    favours frequent tokens while an RM rewards what a finished answer says."""
    return (
        f"The LMs' top first tokens for *{prompt}* have a mean Zipf frequency of "
        f"{lm_zipf:.1f} (wordfreq; 7 ≈ 'the', 3 ≈ rare words); the RMs' top answers {rm_zipf:.1f}. "
        "Why the difference: an LM's number is the probability of the **next token**, the start of *some* answer. "
        "Fluent answers start with frequent tokens (\"The\", \"I\", a quote mark), and all the mass of longer "
        "answers beginning that way is credited to that first token. An RM scores a **finished** response: the token "
        "is the whole answer and the turn ends after it, so what is rewarded is what the answer says — value words. "
        "Scoring whole words under the LM (below: summed log-probs of every token, in the same template) closes only "
        "part of that gap: frequency and length still dominate raw log-probs, which is why the implicit rewards "
        "compare models (log-ratios) rather than use one LM's log-probs alone.")


def mfd2_valence_markdown(tests: pd.DataFrame) -> str:
    """How many virtue-vs-vice panels survive FDR, and how many point the way a valence-sensitive scorer would
    (virtue higher under positive prompts, g < 0; vice higher under negative ones, g > 0)."""
    pos, neg = tests[tests["valence"] == "positive"], tests[tests["valence"] == "negative"]
    return (
        f"{int(tests['reject'].sum())} of {len(tests)} panels (model × foundation × valence) separate virtue from vice "
        f"after FDR. A valence-sensitive scorer would rank virtues higher under positive prompts (g < 0) and vices "
        f"higher under negative ones (g > 0): that holds in {int((pos['hedges_g'] < 0).sum())} of {len(pos)} positive "
        f"and {int((neg['hedges_g'] > 0).sum())} of {len(neg)} negative panels (point estimates).")


def design_prompts_markdown(prompt_keys, n_prompts: int) -> str:
    """Which design prompts the lexicon scores use (``n_prompts`` of them), and why a subset of the 54 when it is one."""
    return f"Design prompts: {describe_prompt_subset(prompt_keys)}" + (
        ": a subset of the 54, because each prompt costs a pass over all words per model on 2 CPU cores "
        "(benchmarks/value_profiles_cost.py); the Big Two and MFD2 chapters use the same prompts and words, so their "
        "cached scores are reused." if n_prompts < 54 else ".")


def lexicon_scores_markdown(dictionary: str, scores: pd.DataFrame, implicit: pd.DataFrame, n_lms: int) -> str:
    """The size of one lexicon's scores (words x prompts x LMs) and the implicit rewards built from them."""
    return (f"**{dictionary}**: {scores['word'].nunique()} words × {scores['prompt_key'].nunique()} prompts × "
            f"{n_lms} LMs; implicit rewards: " + ", ".join(implicit["model"].unique()))
