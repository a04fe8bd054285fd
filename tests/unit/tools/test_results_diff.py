"""tools/results_diff.py: the comparison that proves a refactor changed no chapter's numbers."""
from __future__ import annotations

from pathlib import Path
import importlib.util
import json

from rmbook import book

_spec = importlib.util.spec_from_file_location("results_diff", Path(__file__).resolve().parents[3] / "tools" / "results_diff.py")
rd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rd)


def test_compare_reports_every_path_that_differs():
    a = {"x": 1.0, "y": [1, 2, {"z": "a"}], "only_a": 1, "t": True}
    b = {"x": 1.0 + 1e-12, "y": [1, 3, {"z": "b"}], "only_b": 2, "t": 1}
    found = rd.compare(a, b)
    assert len(found) == 6
    assert any(f.startswith("x: 1.0 != ") for f in found)
    assert "y[1]: 2 != 3 (difference 1)" in found
    assert any(f.startswith("y[2].z:") for f in found)
    assert any(f.startswith("only_a: only before") for f in found) and any(f.startswith("only_b: only after") for f in found)
    assert any(f.startswith("t: true != 1") for f in found)  # a bool is not the number 1
    assert rd.compare(a, a) == []
    # floats within a tolerance count as equal when one is given
    assert len(rd.compare(a, b, rtol=1e-9)) == 5
    # DeepDiff aligns lists: a removed item is one difference, not every later item changed (#64 item 7)
    assert rd.compare([1, 2], [1]) == ["[1]: only before (2)"]
    assert rd.compare({"r": [1, 2, 3]}, {"r": [1, 3]}) == ["r[1]: only before (2)"]
    assert rd.compare({"n": 3}, {"n": 3.0}) == [] and rd.compare({"n": 0.0}, {"n": -0.0}) == []  # JSON's one number


def test_renamed_keys_are_mapped_before_comparing(tmp_path):
    for side, payload in (("before", {"topics": {"n_permutations": 9}}), ("after", {"topics": {"n_resamples": 9}})):
        (tmp_path / side / "tiny" / "results").mkdir(parents=True)
        (tmp_path / side / "tiny" / "results" / "ch.json").write_text(json.dumps(payload))
        (tmp_path / side / "run.json").write_text(json.dumps({"source": side, "commit": "0" * 40, "chapters": {}}))
    report, n = rd.diff_sides(tmp_path / "before", tmp_path / "after", renames=[])
    assert n == 2 and "topics.n_permutations: only before" in report
    report, n = rd.diff_sides(tmp_path / "before", tmp_path / "after",
                              renames=[("ch", "topics.n_permutations", "topics.n_resamples")])
    assert n == 0 and "ch: topics.n_permutations -> topics.n_resamples" in report
    assert "result: no differences" in report


def test_a_file_on_one_side_only_is_a_difference(tmp_path):
    for side in ("before", "after"):
        (tmp_path / side / "tiny" / "results").mkdir(parents=True)
        (tmp_path / side / "run.json").write_text(json.dumps({"source": side, "commit": "0" * 40}))
    (tmp_path / "before" / "tiny" / "results" / "ch.json").write_text("{}")
    report, n = rd.diff_sides(tmp_path / "before", tmp_path / "after", renames=[])
    assert n == 1 and "only before" in report


def test_a_renamed_key_inside_records_is_mapped_in_every_record():
    before = {"love_freedom": [{"word": "love", "score": 1.0}, {"word": "freedom", "score": 2.0}]}
    assert rd._rename(before, "love_freedom[].score", "love_freedom[].reward")
    assert before == {"love_freedom": [{"word": "love", "reward": 1.0}, {"word": "freedom", "reward": 2.0}]}
    assert not rd._rename(before, "love_freedom[].score", "love_freedom[].reward")  # nothing left to rename


def test_the_full_set_skips_every_chapter_without_a_published_mode():
    """The full set runs published mode; a compute-only chapter there would train or sweep for many minutes
    (blinding's 800 decision prompts were run by surprise before it was listed)."""
    cheap = {"about", "claims"}  # no models: the about page reads one file, claims reads the others' results
    compute_only = {n for n in book.chapters() if "MODE" not in book.declared_parameters(n)} - cheap
    assert compute_only <= set(rd.FULL_SKIP), sorted(compute_only - set(rd.FULL_SKIP))


def test_a_key_moved_into_a_section_is_mapped():
    before = {"n_terms": 3, "published": [{"r": 1}], "keep": 1}
    assert rd._rename(before, "n_terms", "terms.n_terms") and rd._rename(before, "published", "published.table")
    assert before == {"terms": {"n_terms": 3}, "published": {"table": [{"r": 1}]}, "keep": 1}


def test_the_items_of_a_list_split_into_named_fields_are_mapped():
    before = {"runs": {"published": {"mds_explained": [0.6, 0.3], "mds": {"n": 2}}}}
    assert rd._rename(before, "runs.published.mds_explained[0]", "runs.published.mds.first_axis")
    assert before["runs"]["published"]["mds_explained"][1] == 0.3  # the list stays until every item has moved
    assert rd._rename(before, "runs.published.mds_explained[1]", "runs.published.mds.second_axis")
    assert before == {"runs": {"published": {"mds": {"n": 2, "first_axis": 0.6, "second_axis": 0.3}}}}
    assert not rd._rename(before, "runs.published.mds_explained[0]", "runs.published.mds.first_axis")


def test_a_side_written_after_the_rename_is_left_as_it_is():
    """Comparing two versions that both postdate a rename (blinding's ``behaviour`` became the section
    ``behaviour.table``) moved the new section into itself and reported 33 false differences."""
    after = {"behaviour": {"table": [1, 2]}, "love_freedom": [{"reward": 1.0}]}
    assert not rd._rename(after, "behaviour", "behaviour.table")
    assert not rd._rename(after, "love_freedom[].score", "love_freedom[].reward")
    assert after == {"behaviour": {"table": [1, 2]}, "love_freedom": [{"reward": 1.0}]}
    before = {"behaviour": [1, 2]}
    assert rd._rename(before, "behaviour", "behaviour.table") and before == {"behaviour": {"table": [1, 2]}}


def test_a_sides_own_folder_named_in_a_value_is_the_same_text_on_both_sides(tmp_path):
    """longer_answers records the error of an absent RM, which names the side's own cache folder: the only
    difference left between two identical runs."""
    for side in ("before", "after"):
        (tmp_path / side / "tiny" / "results").mkdir(parents=True)
        (tmp_path / side / "run.json").write_text(json.dumps({"source": side, "commit": "0" * 40}))
        message = f"no trained RM at {tmp_path / side}/cache/rms/x"
        (tmp_path / side / "tiny" / "results" / "ch.json").write_text(json.dumps({"absent": message, "n": 1}))
    assert rd.diff_sides(tmp_path / "before", tmp_path / "after", renames=[])[1] == 0
    (tmp_path / "after" / "tiny" / "results" / "ch.json").write_text(json.dumps({"absent": "other", "n": 1}))
    assert rd.diff_sides(tmp_path / "before", tmp_path / "after", renames=[])[1] == 1


def test_the_full_set_alone_first_runs_the_tiny_chapters_that_claims_reads():
    """Run with ``--set full`` only, claims failed on both sides: the tiny results of the skipped chapters it reads
    were never written, although the docstring promised them."""
    reads = {"a": [], "skipped": [], "other_skipped": [], "claims": ["a", "skipped"]}
    skip = {"skipped": "slow", "other_skipped": "slow"}
    assert rd.run_plan(["full"], reads, skip_full=skip) == [
        ("tiny", "skipped"), ("full", "a"), ("full", "skipped"), ("full", "other_skipped"), ("full", "claims")]
    both = rd.run_plan(["tiny", "full"], reads, skip_full=skip)
    assert both[:4] == [("tiny", n) for n in reads] and len(both) == 8  # the tiny set already holds them
    assert rd.run_plan(["full"], reads, only=["a"], skip_full=skip) == [("full", "a")]
    assert rd.run_plan(["tiny"], reads, skip_full=skip) == [("tiny", n) for n in reads]


def test_the_full_set_of_this_book_feeds_claims_every_result_it_reads():
    reads = {n: book.reads_results(n) for n in book.in_run_order(book.chapters())}
    plan = rd.run_plan(["full"], reads)
    for name, needs in reads.items():
        ran = {n for s, n in plan[:plan.index(("full", name))] if s == "tiny" or n not in rd.FULL_SKIP}
        assert set(needs) <= ran, (name, set(needs) - ran)
