"""The claims page on the chapters' standard runs: every claim gets a verdict, every number is one a chapter wrote."""
from __future__ import annotations

import json
import math
import re

import pytest

from rmbook.book import cell_errors
from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims.analysis import follow


NUMBER = re.compile(r"(?<![\w.\-−])[-+−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?%?(?![\w.])")


def _close(token: str, value) -> bool:
    """Does ``token`` (as printed) show ``value`` (as the chapter wrote it)?"""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    t = token.replace("−", "-").replace(",", "")
    scale = 1.0
    if t.endswith("%"):
        t, scale = t[:-1], 0.01
    mant, _, exp = t.partition("e")
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    tol = 0.5 * 10 ** -decimals * (10 ** int(exp) if exp else 1) * scale
    return math.isclose(float(t) * scale, float(value), abs_tol=tol * 1.0001)


@pytest.fixture(scope="module")
def page(chapter):
    """The claims page of the tiny book: run after the chapters it reads, in their folder, on their results."""
    chapter.standard_runs(claims.source_chapters())
    res = chapter("claims")
    return res, res.results, res.results_dir


def test_every_claim_has_a_verdict_and_a_reason(page):
    res, out, _ = page
    assert cell_errors(res.path) == []
    rows = {r["key"]: r for r in out["rows"]}
    assert set(rows) == {c.key for c in claims.CLAIMS}
    for key, row in rows.items():
        assert row["verdict"] in claims.VERDICTS and row["reason"], row
        outcomes = [p["outcome"] for p in out["parts"][key] if not p["context"]]
        assert outcomes and all(o in claims.OUTCOMES for o in outcomes)
    assert out["chapters_read"] == claims.source_chapters()
    nb = json.loads(res.path.read_text())
    md = "".join("".join(o["data"].get("text/markdown", "")) for c in nb["cells"] for o in c.get("outputs", [])
                 if "data" in o)
    for row in rows.values():
        assert f"**Verdict: {claims.verdict_shown(row['verdict'], row['lean'])}**" in md  # partly with its lean
    assert f"at least {claims.MOST:.0%} of the units" in md  # the thresholds are on the page
    assert "*not established*: nothing is clear either way" in md  # and what each outcome means
    assert "Every test on this page is two-sided" in md and "one bar in both directions" in md.lower()


def test_every_number_is_one_a_chapter_produced(page):
    _, out, results = page
    from rmbook.chapters.implicit_vs_explicit.claims import DOMAIN_MARGIN
    from rmbook.report.tables import P_FLOOR

    # the rules' constants, the non-inferiority margin of implicit vs explicit RMs (stated as ±), and the floor below
    # which a p is printed as "< 0.001"
    constants = [claims.MOST, claims.ALPHA, claims.TAU_HETEROGENEOUS, claims.MULTIPLE, DOMAIN_MARGIN, -DOMAIN_MARGIN,
                 P_FLOOR]
    n_refs = 0
    for key, parts in out["parts"].items():
        for p in parts:
            for ref in p["refs"]:
                source = json.loads((results / f"{ref['chapter']}.json").read_text())
                assert follow(source, ref["steps"]) == ref["value"], (key, ref)
                n_refs += 1
            if p["outcome"] == "untestable":
                continue
            # a number on the page is one a chapter wrote, a rule's constant, or one the claim derived from those
            # (a count over panels, a test's floor), which the results file lists with what it is
            values = [r["value"] for r in p["refs"]] + [d["value"] for d in p["derived"]] + constants
            for token in NUMBER.findall(p["evidence"]):
                assert any(_close(token, v) for v in values), (key, p["name"], token, p["evidence"])
    assert n_refs > 40


def test_tiny_verdicts_follow_from_the_chapters(page):
    _, out, _ = page
    parts = {k: {p["name"]: p for p in ps} for k, ps in out["parts"].items()}
    rows = {r["key"]: r for r in out["rows"]}
    # the tiny framing run scores two RMs whose negative-prompt half is reversed with the main lexicon: that half
    # fails there, and the part fails outright only when every lexicon agrees (else it is lexicon-dependent)
    neg = parts["framing"]["negative prompts: more sensitive to negative words"]
    assert "(fails)" in neg["evidence"]
    assert (neg["outcome"], bool(neg["note"])) in {("fails", False), ("mixed", True)}
    assert not neg["note"] or ("lexicon-dependent" in neg["note"] and "fails with" in neg["note"])
    # one seed in the default run is not used: the claims test reads the two-seed finetuning run
    assert parts["durability"]["our RMs keep one order across seeds"]["outcome"] != "untestable"
    # the paper's implicit-reward LMs are not here: that claim is not testable, whatever the stand-ins show
    assert rows["implicit_rewards"]["verdict"] == "not testable here"
    # the published ranks of the two words: R-Gem-2B's are apart, R-Lla-3B's one rank apart among the tiny run's
    # words, too close to call (#63 item 6: ranks one apart decided the order)
    lf = parts["love_freedom"]
    assert lf["R-Gem-2B puts love above freedom"]["outcome"] == "holds"
    lla = lf["R-Lla-3B puts freedom above love"]
    assert lla["outcome"] == "holds" or (lla["outcome"] == "not established" and "too close to call" in lla["evidence"])
    assert rows["love_freedom"]["verdict"] in ("replicates", "partly")


def _opening_box(path) -> str:
    """The source of the first box a page shows after its title (and content warning)."""
    nb = json.loads(path.read_text())
    assert "".join(nb["cells"][0]["source"]).startswith("# ")
    return "".join(nb["cells"][1]["source"])


def test_every_page_opens_with_its_brief_and_the_chapters_agree_with_the_claims_page(page, chapter):
    """#43 item 1: findings first. A chapter's brief judges its claims by the claims page's rules on the same
    results, so on the same run the two give each claim the same verdict."""
    res, out, _ = page
    rows = {r["key"]: r for r in out["rows"]}
    box = _opening_box(res.path)
    assert box.startswith("```{admonition} In brief") and f"Of {len(rows)} claims: **" in box
    for name in claims.source_chapters():
        box = _opening_box(chapter(name).path)
        assert box.startswith("```{admonition} In brief"), (name, box[:200])
        for c in claims.chapter_claims(name):
            shown = claims.verdict_shown(rows[c.key]["verdict"], rows[c.key]["lean"])
            assert f"*{c.claim}* ({c.paper}): **{shown}**." in box, (name, c.key, box)
