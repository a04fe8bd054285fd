"""Findings in sentences, computed from the tables (no number typed in by hand), one module per chapter group.

Each function takes what an :mod:`rmlib.analysis` function returned and gives markdown; a chapter cell shows it with
``display(Markdown(...))``.
"""
from rmlib.report.prose import (blinding, distributions, exposure, finetuning, framing, heterogeneity, identity,
                                implicit, implicit_explicit, method, misalignment, teaching)
from rmlib.report.prose.values import (anova_sentence, comparison_markdown, contrast_lines, describe_panel,
                                       describe_prompt_subset, direction_markdown, findings_markdown, interaction_markdown,
                                       missing_families_markdown, score_label, scores_markdown, word_pair_markdown)

__all__ = ["blinding", "distributions", "exposure", "finetuning", "framing", "heterogeneity", "identity", "implicit", "implicit_explicit", "method", "misalignment", "teaching",
           "describe_prompt_subset", "contrast_lines", "describe_panel", "anova_sentence", "findings_markdown",
           "direction_markdown", "scores_markdown", "score_label", "missing_families_markdown", "word_pair_markdown",
           "comparison_markdown", "interaction_markdown"]
