"""rmbook.chapters.longer_answers.results: the chapter's results built section by section from planted frames, stored
and read back; published mode off is None, and no model searched leaves empty sections."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.longer_answers import results
from rmbook.results import read_results, write_results

COMPARISON = pd.DataFrame({"model": ["m", "m", "lm", "m"], "prompt_key": "greatest",
                           "direction": ["max", "min", "max", "max"], "length": [2, 2, 2, 1], "n_restarts": 2,
                           "n_beyond": [0, 2, 1, 0], "n_contains_top1": [1, 0, 0, 2], "n_contains_topk": [2, 1, 0, 2],
                           "best": [1.5, -3.0, 0.2, 1.0]})
SUMMARY = pd.DataFrame({"model": ["m", "lm", "m"], "prompt_key": "greatest", "direction": ["max", "max", "min"],
                        "overlap": [0.2, 0.6, 1.0], "modal_multi": ["word", "number", "word"],
                        "modal_one_token": ["word", "number", "subword"], "shared_categories": [["word"], [], []]})


def test_the_sections_hold_what_the_sentences_say():
    cmp = results.comparison(COMPARISON, ["lm"], 10)
    assert [d.direction for d in cmp.directions] == ["max", "min"] and cmp.any_lm
    mx = cmp.directions[0]  # the n = 1 check is left out of the counts
    assert (mx.n_restarts, mx.n_beyond, mx.n_models, mx.n_models_beyond, mx.lengths) == (4, 1, 2, 1, [2])
    assert (mx.n_contains_top1, mx.n_contains_topk, mx.share_contains_topk) == (1, 2, 0.5)
    assert not results.comparison(COMPARISON, [], 10).any_lm
    share = results.sharing(SUMMARY)
    mx = share.directions[0]
    assert (mx.overlap_min, mx.overlap_max, mx.overlap_median, mx.n_same_mode) == (0.2, 0.6, pytest.approx(0.4), 2)
    assert mx.same_modes == ["number", "word"] and share.directions[1].same_modes == [] and share.any_multi
    s = results.search(["a", "local:x"], ["a"], {"local:x": "local:x: no trained RM"}, {"g": "What?"}, [4, 1], 2, 6)
    assert s.absent == {"local:x": "no trained RM"} and s.any_local_absent and (s.n_absent, s.n_requested) == (1, 2)
    assert s.lengths == [1, 4] and s.searches_one_token
    pub = results.published(pd.DataFrame({"model": ["a", "b"], "prompt_key": "p", "share_multi_word": [0.2, 0.6],
                                          "rho": [0.3, -0.1], "p": [0.01, 0.5]}))
    assert (pub.n_models, pub.n_prompts, pub.n_pairs, pub.n_longer_more, pub.n_longer_less) == (2, 1, 2, 1, 0)
    assert (pub.rho_min, pub.rho_max, pub.share_multi_word_median) == (-0.1, 0.3, pytest.approx(0.4))


def test_the_results_are_typed_and_read_back(tmp_path):
    search = results.search(["m", "local:x"], ["m"], {"local:x": "not trained here"}, {"greatest": "What?"},
                            [1, 2], 2, 6)
    out = results.chapter_results("compute", None, search, results.comparison(COMPARISON, [], 10),
                                  results.sharing(SUMMARY))
    assert out.published is None and out.comparison.table[0]["best"] == 1.5 and len(out.sharing.table) == 3
    write_results(out, tmp_path)
    assert read_results("longer_answers", tmp_path, results.LongerAnswersResults) == out
    with pytest.raises(ValueError):
        results.chapter_results("all", None, search, out.comparison, out.sharing)
    with pytest.raises(ValueError):
        results.search([], [], {}, {}, ["two"], 1, 1)


def test_no_model_searched_leaves_empty_sections():
    cmp, share = results.comparison(pd.DataFrame(), [], 10), results.sharing(pd.DataFrame())
    assert (cmp.table, cmp.directions, cmp.any_lm) == ([], [], False)
    assert (share.table, share.directions, share.any_multi) == ([], [], False)
