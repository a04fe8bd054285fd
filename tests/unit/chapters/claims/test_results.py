"""rmbook.chapters.claims.results: the page's results keep every part's numbers with the steps that lead back to
them in the chapter's own results."""
from __future__ import annotations

import json

import pytest

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims import results
from rmbook.chapters.heterogeneity.results import HeterogeneityResults
from rmbook.report.brief import words
from rmbook.report.prose import render
from rmlib.errors import RmlibError
from rmbook.results import read_results, write_results


def _het() -> HeterogeneityResults:
    pm = {"design": "same base family", "given": "similar size", "r": 0.27, "p": 0.05, "r_design": 0.59,
          "r_given_design": 0.62, "n_models": 10,
                "exact": True, "p_se": 0.0, "n_permutations": 120, "alternative": "two-sided"}
    agreement = {"name": "published", "tau_min": 0.1, "tau_median": 0.4, "tau_max": 0.8, "least_alike": ["a", "b"],
                 "most_alike": ["a", "c"], "tau_shuffled_low": -0.02, "tau_shuffled_high": 0.02,
                 "rbo_top_median": 0.5, "rbo_bottom_median": 0.5, "rbo_shuffled_mean": 0.1, "rbo_gap": 0.0,
                 "agree_more_at_top": False}
    designs = {"name": "published", "status": "tested", "n_models": 10, "skipped": [], "alpha": 0.05,
               "best_design": "similar size", "best_r": 0.72, "best_p": 0.001, "best_n_models": 10, "verdict": "match",
               "base_given_size": pm, "size_given_base": None, "base_confounded": False, "designs_overlap": True}
    run = {"models": ["a"], "reward_kinds": {"a": "RM score"}, "n_items": 5, "floor": [], "rsa": [], "kendall": {},
           "partial_mantels": [pm, {**pm, "design": "similar size", "given": "same base family", "r": 0.55}],
           "about": {"name": "published", "n_models": 10, "what": "items", "n_implicit": 0},
           "agreement": agreement, "mds": {"name": "published", "first_axis": 0.5, "second_axis": 0.2},
           "designs": designs}
    return HeterogeneityResults(mode="published", runs={"published": run})


def test_the_page_results_lead_back_to_each_number(tmp_path):
    het = _het()
    say = words  # as the page passes it
    e = claims.Evidence({c: (het if c == "heterogeneity" else None) for c in claims.source_chapters()}, say=say)
    table, parts = claims.claims_table(e)
    out = results.chapter_results(["heterogeneity"], table, parts)
    write_results(out, tmp_path)
    back = read_results("claims", tmp_path, results.ClaimsResults)
    assert back == out and back.rules["MOST"] == claims.MOST
    refs = [r for p in back.parts["heterogeneity"] for r in p.refs]
    assert len(refs) >= 8
    stored = json.loads(json.dumps(het.model_dump(mode="json")))
    for r in refs:
        assert claims.follow(stored, r.steps) == r.value, r.path
    assert any(r.path == "runs['published'].partial_mantels.where(design='similar size', given='same base family').r"
               for r in refs)
    assert all(p.outcome == "untestable" for p in back.parts["big_two"])


def test_the_page_lines_are_rendered_from_its_sections():
    say = words
    e = claims.Evidence({c: (_het() if c == "heterogeneity" else None) for c in claims.source_chapters()},
                        reasons={c: f"{c}.json not found" for c in claims.source_chapters()}, say=say)
    sources = results.sources_read(e)
    assert (sources.n_read, sources.read, sources.all_read) == (1, ["heterogeneity"], False)
    text = render("claims", "read_from", s=sources)
    assert text.startswith("Results read from 1 of 12 chapters: heterogeneity. Missing: distributions "
                           "(distributions.json not found); framing (framing.json not found);")
    table, parts = claims.claims_table(e)
    counts = results.glance(table)
    assert [c.verdict for c in counts.counts] == list(claims.VERDICTS)
    assert sum(c.n for c in counts.counts) == len(claims.CLAIMS)
    glance = render("claims", "at_a_glance", s=counts)
    assert glance.startswith(f"Of {len(table)} claims: **0 replicates**, **1 partly** (1 for, 0 both ways, 0 "
                             "against)")  # #63 item 3: which way each partly leans
    row = next(table.itertuples())
    shown = results.claim_shown(row, parts[row.key])
    assert shown.attainable_p is None and shown.reason.startswith("RMs rank items differently: holds")
    text = render("claims", "claim", s=shown)
    assert text.startswith(f"### {row.claim}\n\n**Verdict: partly (for)** (by reproduction). RMs rank items "
                           "differently: holds; ")
    # #63 item 9: each verdict and part says whether it rests on the authors' released data or on new models
    assert "- *RMs rank items differently* [reproduction] — **holds**" in text
    assert ("\n- *RMs rank items differently* [reproduction] — **holds**: median Kendall τ between RMs' item rankings 0.40 "
            "(range 0.10–0.80).\n") in text
    # size given base at p = 0.05 is not significant: the page does not name a confound (#38 item 9)
    assert "keeps r = 0.55 (p = 0.05)" in text and "confound" not in text
    shown = results.claim_shown(row._replace(attainable_p=0.0123), parts[row.key])
    assert "The smallest p its tests could give with this many units: 0.012.\n\n- *Paper:*" in render(
        "claims", "claim", s=shown)


def test_a_part_without_a_renderer_is_an_error_not_a_blank():
    e = claims.Evidence({c: (_het() if c == "heterogeneity" else None) for c in claims.source_chapters()})
    with pytest.raises(RmlibError, match="say="):
        claims.claims_table(e)


def test_the_glance_table_has_four_columns_and_keeps_paper_chapter_and_floor():
    """#43 item 3: six columns hid the reason past the text column at 1280 px; #63 item 5 adds the verdict under
    error control beside the uncorrected one."""
    e = claims.Evidence({c: (_het() if c == "heterogeneity" else None) for c in claims.source_chapters()},
                        reasons={c: f"{c}.json not found" for c in claims.source_chapters()},
                        say=words)
    table, _ = claims.claims_table(e)
    table.loc[table.index[0], "attainable_p"] = 0.0476
    shown = results.glance_table(table)
    assert list(shown.columns) == ["claim", "verdict", "under control", "why"] and len(shown) == len(table)
    first = table.iloc[0]
    assert shown.iloc[0]["claim"] == f"{first['claim']} ({first['paper']})"
    assert shown.iloc[0]["why"].endswith(f"; the smallest attainable p is 0.048 (reproduction; chapter: "
                                         f"{first['chapter']})")
    assert "attainable" not in shown.iloc[1]["why"] and shown.iloc[1]["why"][0].isupper()
