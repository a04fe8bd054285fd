"""rmlib.analysis.results.longer_answers: the chapter's results from planted frames; published mode off is None."""
from __future__ import annotations

import pandas as pd
import pytest

from rmlib.analysis.results import longer_answers as results
from rmlib.storage import read_results, write_results


def test_the_results_are_typed_and_read_back(tmp_path):
    comparison = pd.DataFrame({"model": ["m"], "prompt_key": ["greatest"], "direction": ["optimal"], "n": [2],
                               "reward": [1.5], "one_token_best": [1.0]})
    out = results.chapter_results("compute", None, ["m"], {"local:x": "not trained here"}, {"greatest": "What?"},
                                  [1, 2], 2, 6, comparison, pd.DataFrame())
    assert out.published is None and out.comparison[0]["reward"] == 1.5 and out.category_sharing == []
    write_results(out, tmp_path)
    assert read_results("longer_answers", tmp_path, results.LongerAnswersResults) == out
    with pytest.raises(ValueError):
        results.chapter_results("all", None, [], {}, {}, [1], 1, 1, comparison, pd.DataFrame())
    with pytest.raises(ValueError):
        results.chapter_results("compute", None, [], {}, {}, ["two"], 1, 1, comparison, pd.DataFrame())
