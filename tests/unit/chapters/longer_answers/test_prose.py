"""The longer_answers chapter's sentences (templates/longer_answers.md.j2), rendered from its results sections as the
chapter does: the same facts the old prose functions stated, now read from the typed sections alone."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.longer_answers import results
from rmbook.report.prose import render

PUBLISHED = pd.DataFrame({"model": ["a", "a", "b", "b"], "prompt_key": ["p", "q", "p", "q"],
                          "share_multi_word": [0.4] * 4, "rho": [0.30, -0.20, 0.01, -0.25],
                          "p": [0.001, 0.01, 0.9, 0.2]})
# two models, max and min at n = 2 and 4 (and one n = 1 check, which the counts leave out)
COMPARISON = pd.DataFrame({"model": ["m1", "m1", "m2", "m2", "m1", "m2"], "prompt_key": "g",
                           "direction": ["max", "min", "max", "min", "max", "max"], "length": [2, 2, 4, 4, 1, 2],
                           "n_restarts": 3, "n_beyond": [1, 2, 0, 3, 0, 0], "n_contains_top1": [0, 1, 0, 0, 3, 1],
                           "n_contains_topk": [1, 2, 0, 1, 3, 2]})
SUMMARY = pd.DataFrame({"model": ["a", "b", "a", "b"], "prompt_key": "g", "direction": ["min", "min", "max", "max"],
                        "overlap": [0.2, 0.8, 0.5, 0.6], "modal_multi": ["word", "number", "x", "y"],
                        "modal_one_token": ["word", "subword", "z", "w"]})


def _say(part, **context):
    return render("longer_answers", part, **context)


def _search(models=("a", "b"), absent=None, lengths=(2,)):
    return results.search(list(models), [], absent or {}, {}, list(lengths), 1, 1)


def test_the_lengths_say_why_one_token_is_not_searched():
    text = _say("lengths", s=_search(lengths=[8, 2, 4]))
    assert text.startswith("Lengths searched: n = 2, 4, 8.") and "n = 1 is not searched" in text
    assert "exhaustive sweep" in text


def test_the_lengths_call_a_one_token_search_a_check():
    text = _say("lengths", s=_search(lengths=[1, 2]))
    assert "n = 1, 2." in text and "not searched" not in text and "check" in text


def test_the_absent_models_are_named_with_why_and_the_local_note():
    assert _say("absent", s=_search()) == "All 2 models in `MODELS` are available: `a`, `b`."
    one = _say("absent", s=_search(["a", "local:x", "c"], {"local:x": "local:x: no trained RM here"}))
    assert one.startswith("**1 of the 3 models in `MODELS` is absent here and left out of every table")
    assert ":**\n- `local:x`: no trained RM here\n\n" in one  # a tight list, then the note and "A `local:` RM exists only after" in one
    two = _say("absent", s=_search(["a", "b", "c"], {"b": "b: gone", "c": "why"}))
    assert "2 of the 3 models in `MODELS` are absent" in two and "- `b`: gone" in two and "- `c`: why" in two
    assert "local:" not in two


def test_the_published_sentence_counts_the_significant_pairs_by_sign():
    text = _say("published", s=results.published(PUBLISHED))
    assert "Across 2 paper RMs and 2 prompts (4 model x prompt pairs; 40% of the items" in text
    assert "ranges from -0.25 to 0.30" in text
    assert "in 1 of these pairs the RM rewards longer answers more and in 1 less, at p < 0.05" in text
    assert _say("published_off") == "Published mode is off (`MODE = 'compute'`)."
    assert _say("compute_off") == "Compute mode is off (`MODE = 'published'`)."


def test_beyond_counts_restarts_and_models_per_direction_and_warns_about_lms():
    text = _say("beyond", s=results.comparison(COMPARISON, [], 10))
    optima, pessima = text.split("\n\n")
    assert optima.startswith("**Optima (direction max).** Of 9 restarts at n = 2 and 4 tokens, 1 (11%) found a "
                             "response with a higher reward than the best one-token answer")
    assert "1 of 2 models had at least one such restart. 1 (11%) of the restarts'" in optima
    assert "and 3 (33%) contain at least one of the 10 most extreme" in optima
    assert "one of the 5 most extreme" in _say("beyond", s=results.comparison(COMPARISON, [], 5))  # k is a field
    assert pessima.startswith("**Pessima (direction min).** Of 6 restarts") and "5 (83%)" in pessima
    assert "a lower reward than the worst one-token answer" in pessima and "2 of 2 models" in pessima
    assert "summed* log-probability" not in text
    assert "summed* log-probability" in _say("beyond", s=results.comparison(COMPARISON, ["m2"], 10))
    assert _say("nothing_compared") == "No model was available: nothing to compare."


def test_sharing_gives_the_overlap_range_and_the_shared_modes_per_direction():
    text = _say("sharing", s=results.sharing(SUMMARY))
    low, high = text.split("\n")  # one line per direction: a tight list
    assert low == ("- **min**: the overlap of the category mix (1 = identical, 0 = disjoint) ranges from 0.20 to 0.80 "
                   "(median 0.50) over 2 model x prompt pairs; in 1 of them the most common category is the same "
                   "(word).")
    assert high.startswith("- **max**:") and "in 0 of them the most common category is the same (none)." in high
    empty = _say("sharing", s=results.sharing(pd.DataFrame()))
    assert empty == "No multi-token runs (all lengths are 1): nothing to compare."
