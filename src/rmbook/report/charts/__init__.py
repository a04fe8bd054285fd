"""The book's shared charts, drawn offline (``render.py``): a chapter calls :func:`rmbook.report.setup_page` once.

``basic.py`` holds the general chart types; ``lexical.py`` (framing, mere_exposure), ``values.py`` (the value
chapters, finetuning, elo_misalignment, good_teachers) and ``tokens.py`` (method, distributions, elo_misalignment)
the charts several chapters draw, and ``card.py`` a value card's (and a compute-mode chapter's models beside the
paper RMs, drawn as a card draws them). A chart only one chapter draws lives in that chapter's folder
(``rmbook/chapters/<name>/charts.py``, :mod:`rmbook.chapters`), built on these. A chart takes a tidy DataFrame and
checks its columns.
"""
from rmlib.lazy import lazy_face

# where each chart lives: a chapter's kernel imports only the chart modules it draws with (PEP 562), so an
# edit to one chapter's charts leaves the other chapters' stamps current
_WHERE = {
    **dict.fromkeys(["effect_chart", "heatmap", "histogram", "ranked_bar", "scatter", "slope_ci"], "basic"),
    **dict.fromkeys(["beside_chart", "card_agreement_chart", "card_chart", "card_foundations_chart", "card_map_chart",
                     "cards_overview_chart"], "card"),
    **dict.fromkeys(["cell_strip_chart", "framing_halves_chart", "framing_slopes_chart", "halves_by_source_chart",
                     "swarm_offsets", "word_swarm_chart"], "lexical"),
    **dict.fromkeys(["BUNDLE_NAME", "MAX_ROWS", "RENDERER", "enable_offline", "render_html", "vega_bundle_js",
                     "write_vega_bundle"], "render"),
    **dict.fromkeys(["enrichment_chart", "rank_trajectory_chart", "tail_composition_chart", "tail_explorer",
                     "tail_table"], "tokens"),
    **dict.fromkeys(["gap_chart", "median_rank_chart", "published_trajectory_chart", "trajectory_chart"], "values"),
}
__all__ = sorted(_WHERE)
__getattr__, __dir__ = lazy_face(__name__, _WHERE)
