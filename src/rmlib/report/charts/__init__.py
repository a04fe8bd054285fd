"""Every chart of the book, drawn offline (``render.py``): a chapter calls :func:`rmlib.report.setup_page` once.

``basic.py`` holds the general chart types; ``lexical.py``, ``values.py``, ``tokens.py``, ``similarity.py``,
``ratings.py``, ``teaching.py``, ``implicit_explicit.py``, ``blinding.py``, ``gcg.py`` (longer_answers) and
``claims.py`` (the verdicts, on the claims page and the landing page) the charts of particular chapters, and
``card.py`` a value card's. A new
chart goes in the module of its chapter family, takes a tidy DataFrame and checks its columns.
"""
from rmlib.report.charts.basic import effect_chart, heatmap, histogram, ranked_bar, scatter, slope_ci
from rmlib.report.charts.blinding import disparity_chart, effects_chart
from rmlib.report.charts.card import card_chart
from rmlib.report.charts.claims import verdict_chart
from rmlib.report.charts.gcg import convergence_chart
from rmlib.report.charts.implicit_explicit import accuracy_by_set_chart, displacement_chart
from rmlib.report.charts.lexical import (cell_strip_chart, framing_halves_chart, framing_slopes_chart,
                                        halves_by_source_chart, swarm_offsets, word_swarm_chart)
from rmlib.report.charts.ratings import human_vs_model_ranks
from rmlib.report.charts.render import (BUNDLE_NAME, MAX_ROWS, RENDERER, enable_offline, render_html,
                                        vega_bundle_js, write_vega_bundle)
from rmlib.report.charts.similarity import mds_map, similarity_heatmaps
from rmlib.report.charts.teaching import predictor_scatter, teaching_trajectory_chart
from rmlib.report.charts.tokens import (enrichment_chart, rank_trajectory_chart, tail_composition_chart,
                                        tail_explorer, tail_table)
from rmlib.report.charts.values import gap_chart, median_rank_chart, published_trajectory_chart, trajectory_chart

__all__ = ["enable_offline", "render_html", "vega_bundle_js", "write_vega_bundle", "BUNDLE_NAME", "MAX_ROWS",
           "RENDERER", "heatmap", "ranked_bar", "histogram", "scatter", "slope_ci", "effect_chart",
           "framing_slopes_chart", "framing_halves_chart", "halves_by_source_chart", "word_swarm_chart",
           "swarm_offsets", "cell_strip_chart", "median_rank_chart", "trajectory_chart", "gap_chart",
           "published_trajectory_chart", "tail_composition_chart", "rank_trajectory_chart", "enrichment_chart",
           "tail_table", "tail_explorer",
           "similarity_heatmaps", "mds_map", "human_vs_model_ranks", "disparity_chart", "effects_chart",
           "verdict_chart", "card_chart", "teaching_trajectory_chart", "predictor_scatter", "accuracy_by_set_chart",
           "displacement_chart",
           "convergence_chart"]
