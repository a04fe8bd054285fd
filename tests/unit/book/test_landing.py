"""rmbook.book.landing: the landing page opens with the claims page's tally and a chart of its verdicts, written from
the claims results, the same text for the same results, and a plain line (no path) before the page has run."""
from __future__ import annotations

import json

from rmbook.book import landing
from rmbook.book.chapters import results_dir
from rmbook.chapters.claims.results import ClaimsResults
from rmbook.results import write_results

ROWS = [{"key": k, "paper": paper, "claim": f"Claim {k}.", "chapter": ch, "verdict": v, "reason": "r"}
        for k, paper, ch, v in [("a", "FAccT 2025", "framing", "replicates"),
                                ("b", "FAccT 2025", "heterogeneity", "partly"),
                                ("c", "ICLR 2026", "big_two", "not established"),
                                ("d", "ICLR 2026", "big_two", "partly")]]


def _book(tmp_path):
    executed = tmp_path / "book" / "_executed"
    results = ClaimsResults(rules={"MOST": 0.75}, chapters_read=["framing"], rows=ROWS, parts={})
    write_results(results, results_dir(executed))
    return tmp_path, executed


def test_the_landing_states_the_tally_links_the_page_and_draws_every_claim(tmp_path):
    root, executed = _book(tmp_path)
    path = landing.write_landing(root)
    assert path == executed / landing.LANDING_FILE
    text = path.read_text()
    assert text.startswith("**What replicates.** Of 4 claims: **1 replicates**, **2 partly**, **1 not established**, "
                           "**0 does not**, **0 not testable here**.")
    assert "{doc}`What replicates </book/_executed/claims>`" in text
    spec = json.loads(text.split("var spec = ", 1)[1].split(";\n", 1)[0])
    values = next(iter(spec["datasets"].values()))
    assert [(v["paper"], v["position"], v["verdict"]) for v in values] == [
        ("FAccT 2025", 1, "replicates"), ("FAccT 2025", 2, "partly"), ("ICLR 2026", 1, "not established"),
        ("ICLR 2026", 2, "partly")]
    assert 'id="rmlib-vis-landing"' in text


def test_the_same_results_leave_the_file_alone_and_new_ones_rewrite_it(tmp_path):
    root, executed = _book(tmp_path)
    path = landing.write_landing(root)
    before = path.stat().st_mtime_ns
    assert landing.write_landing(root).stat().st_mtime_ns == before  # an unchanged book is not rebuilt
    rows = [dict(r, verdict="does not") for r in ROWS]
    write_results(ClaimsResults(rules={}, chapters_read=[], rows=rows, parts={}), results_dir(executed))
    assert "**4 does not**" in landing.write_landing(root).read_text()


def test_before_the_claims_page_has_run_the_landing_says_so_without_a_path(tmp_path):
    text = landing.write_landing(tmp_path).read_text()
    assert "has not been built yet" in text and "make book" in text and str(tmp_path) not in text
