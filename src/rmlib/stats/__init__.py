"""The statistics the chapters use (layer 4), on scipy and statsmodels; each returns tables a test can check.

* ``columns.py``: input checks shared by all of them (:func:`require_columns`, :func:`finite_array`);
* ``effects.py``: effect sizes, moments and tail asymmetry with bootstrap CIs; ``correlation.py``: Spearman's rho
  with the Bonett-Wright interval; ``resampling.py``: the one bootstrap interval, the interval of a mean (Student t,
  which holds over ten RMs) and cluster-bootstrap means;
* ``ranking.py``: the one :func:`top_bottom`, percentile ranks, standardised rewards, Kendall's W;
* ``similarity.py``: how alike models rank items (Kendall, Spearman, RBO, MDS, Mantel/RSA);
* ``permutation.py``: label-permutation p-values, exact up to 10! relabellings, else with their Monte Carlo error;
* ``group_tests.py``: permutation tests, ANOVA, post-hoc tests, mixed models; ``regression.py``: per-cell slopes and
  shuffled baselines; ``enrichment.py``: over-representation of labels among flagged items.

A new statistic goes in the module of its kind (or a new one), with a test that plants a known effect and a null.
"""
from rmlib.stats.columns import finite_array, formula_name, require_columns
from rmlib.stats.correlation import spearman_ci
from rmlib.stats.effects import (ci_verdict, cohen_d, effect_size, hedges_g, moments, rank_biserial,
                                 t_interval, tail_asymmetry, tail_comparison)
from rmlib.stats.enrichment import rank_strata, topic_enrichment
from rmlib.stats.group_tests import (anova_type2, median_ranks, mixed_model, one_way_by, permutation_tests,
                                     posthoc_welch, within_prompt_ranks)
from rmlib.stats.ranking import kendall_w, percentile_ranks, standardise, top_bottom
from rmlib.stats.regression import (cell_slopes, compare_to_baseline, proportion_ci, share_positive,
                                    shuffled_share_baseline,
                                    slope_difference)
from rmlib.stats.resampling import MIN_CI_VALUES, bootstrap_ci, cluster_mean_ci, mean_ci, mean_with_ci
from rmlib.stats.similarity import (check_wide_scores, classical_mds, difference_design, mantel_test,
                                    pairwise_similarity, rbo_ext, rsa, same_group_design,
                                    shuffled_similarity_baseline, similarity_matrices, upper_pairs,
                                    upper_triangle)

__all__ = ["MIN_CI_VALUES", "require_columns", "finite_array", "formula_name", "cohen_d", "hedges_g", "rank_biserial", "effect_size",
           "moments", "tail_asymmetry", "tail_comparison", "ci_verdict", "t_interval", "one_way_by", "spearman_ci", "bootstrap_ci", "mean_ci", "cluster_mean_ci", "mean_with_ci",
           "top_bottom", "percentile_ranks", "standardise", "kendall_w", "check_wide_scores", "rbo_ext", "pairwise_similarity",
           "similarity_matrices", "classical_mds", "same_group_design", "difference_design", "mantel_test", "rsa",
           "shuffled_similarity_baseline", "upper_triangle", "upper_pairs", "within_prompt_ranks", "median_ranks",
           "permutation_tests", "mixed_model", "anova_type2", "posthoc_welch", "cell_slopes", "slope_difference",
           "proportion_ci", "share_positive", "shuffled_share_baseline", "compare_to_baseline", "topic_enrichment", "rank_strata"]
