"""The "Where the value lives" chapter: where in a network the agency − communion gap is written, for the embedded
LMs' implicit rewards and the RMs the finetuning chapter trained from them, checked by activation patching.

``analysis.py`` reads the lens (:mod:`rmlib.lens`) over the Big Two words and splits each RM's gap into its frozen
and tuned layers; ``types.py`` is its results type; ``results.py`` builds it; ``prose.md.j2`` holds its sentences;
``charts.py`` draws the gap by layer; ``course.py`` holds the lab's checks and ``lab.py`` its planted model and runs.
"""
__all__ = []
