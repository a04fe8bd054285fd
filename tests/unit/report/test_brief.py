"""rmbook.report.brief: a chapter's brief judges its own claims by the claims page's code, on its own results only."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rmbook.chapters.claims import analysis as claims
from rmbook.report import brief
from tests.unit.chapters.claims.conftest import plant
from tests.unit.chapters.claims.test_catalogue import _framing, _half, _heterogeneity


def test_a_chapter_judges_the_claims_it_tests_and_reads_only_its_own_results(monkeypatch):
    framing = _framing({"afinn": {"pos_prompts": _half(10, 0), "neg_prompts": _half(0, 9)}})
    read = []

    def load(results_dir, say=None, chapters=None):
        read.append((results_dir, chapters))
        return claims.Evidence({"framing": plant("framing", framing)}, say=say)

    monkeypatch.setattr(brief.claims, "load_evidence", load)
    text = brief.claims_brief("framing", "/planted")
    assert read == [("/planted", ["framing"])]
    assert text.startswith("*Under positive prompts RMs are more sensitive to positive words; under negative prompts, "
                           "to negative words.* (FAccT 2025): **partly (both ways)**.")
    assert "negative prompts: more sensitive to negative words: fails" in text
    assert "The verdict follows the rules of {doc}`What replicates </book/_executed/claims>`" in text
    assert not text.startswith("- ")  # one claim: a sentence, not a one-item list


def test_the_claims_a_chapter_tests_are_the_catalogue_s():
    assert [c.key for c in claims.chapter_claims("big_two")] == ["love_freedom", "big_two", "three_way"]
    assert claims.chapter_claims("method") == []
    with pytest.raises(KeyError, match="chapter 'method' holds no claims"):
        brief.claims_brief("method", "/x")


def test_a_run_without_a_results_folder_says_its_claims_were_not_judged():
    text = brief.claims_brief("big_two", None)
    assert "the 3 claims this chapter tests were not judged here" in text
    assert "1 claim this chapter tests was not judged" in brief.claims_brief("heterogeneity", None)


_LOADS = """
import json, sys
from rmbook.analysis import claims
from rmbook.report import brief
from rmbook.report.prose.render import LOADED_TEMPLATES
from tests.unit.chapters.claims.conftest import plant

claims.load_evidence = lambda d, say=None, chapters=None: claims.Evidence(
    {"heterogeneity": plant("heterogeneity", json.loads(sys.argv[1]))}, say=say)
text = brief.claims_brief("heterogeneity", "/planted")
print(json.dumps({"text": text, "templates": sorted(LOADED_TEMPLATES),
                  "chapters": sorted(m for m in sys.modules if m.startswith("rmbook.chapters."))}))
"""


def test_a_chapters_brief_loads_its_own_claims_and_no_other_chapters():
    """#64 item 1: every brief imported all ten claims modules and rendered the claims page's template, so an edit to
    one claim reran twelve chapters. A chapter's kernel records what it loaded (its stamp hashes exactly that,
    rmbook.book.imported): here, its own claims, their sentences and the shared verdict words, nothing of another
    chapter or of the claims page."""
    planted = json.dumps(_heterogeneity(0.0001))  # the test module that holds it imports the claims page
    out = subprocess.run([sys.executable, "-c", _LOADS, planted], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[3]).stdout
    loaded = json.loads(out)
    assert "*Reward models trained for similar objectives" in loaded["text"]  # it did judge the claim
    assert loaded["templates"] == ["rmbook/chapters/heterogeneity/claims.md.j2",
                                   "rmbook/report/prose/templates/verdicts.md.j2"]
    assert loaded["chapters"] == ["rmbook.chapters.heterogeneity", "rmbook.chapters.heterogeneity.claims",
                                  "rmbook.chapters.heterogeneity.types"]
