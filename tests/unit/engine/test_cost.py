"""The cost model: parameters from the registry's architectures, template positions checked against the tiny models'
chat formats, FLOPs per path, worker groups (splitting a model's prompts), the longest-first schedule, and the
estimate of the paper plan."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rmlib import registry
from rmlib.engine import Job, SweepError
from rmlib.engine.cost import (GPUS, TEMPLATES, WORKER_COUNTS, estimate, job_cost, makespan, non_embedding_params,
                               prompt_tokens, worker_groups)

PAPER_PLAN = Path(__file__).parents[3] / "plans" / "paper_rms.yaml"
PAPER = [s for s in registry.registry().values() if s.source == "hub" and s.kind == "rm"]

# Published parameter counts of the base models (their model cards): embeddings included, the LM head counted
# again where it is not tied to them (Llama-3-8B).
PUBLISHED = {("llama3", 8): (8.03e9, False), ("llama3", 3): (3.21e9, True), ("gemma2", 2): (2.61e9, True),
             ("gemma2", 27): (27.23e9, True)}


def test_an_8b_llama_has_6_98e9_non_embedding_parameters():
    spec = registry.get_spec("Skywork/Skywork-Reward-Llama-3.1-8B-v0.2")
    assert non_embedding_params(spec.arch, spec.family) == 6_979_588_096


@pytest.mark.parametrize("spec", PAPER, ids=lambda s: s.nickname)
def test_recorded_architectures_give_the_published_parameter_counts(spec):
    total, tied = PUBLISHED[(spec.family, int(spec.size_b))]
    embedding = spec.arch["vocab"] * spec.arch["hidden"]
    counted = non_embedding_params(spec.arch, spec.family) + embedding * (1 if tied else 2)
    assert counted == pytest.approx(total, rel=0.005)


@pytest.mark.parametrize("family", sorted(TEMPLATES))
def test_recorded_template_positions_are_the_tiny_models_chat_format(family):
    from rmlib.models.templates import answer_slot
    from rmlib.models.tiny import tiny_tokenizer
    tok, tpl = tiny_tokenizer(TEMPLATES[family].tiny), TEMPLATES[family]
    prompt = "What, in one word, is the greatest thing ever?"
    slot = answer_slot(tok, prompt)
    assert 1 + len(slot.suffix_ids) == tpl.new   # the candidate, then the template's closing tokens
    special = set(tok.added_tokens_decoder)   # the turn markers, BOS, EOS, pad
    text = tok.decode([i for i in slot.prefix_ids if i not in special])
    assert prompt in text
    # turn markers are one token each; role names and newline runs are one token each in the real tokenizers
    words = len(re.findall(r"\w+|\n+|[^\w\s]", text.replace(prompt, " ")))
    assert sum(i in special for i in slot.prefix_ids) + words == tpl.prefix


def test_prompt_tokens_counts_words_and_punctuation():
    assert prompt_tokens("What, in one word, is the greatest thing ever?") == 12
    assert prompt_tokens("Please answer in one word only.") == 7


def _job(model="Skywork/Skywork-Reward-Gemma-2-27B", prompt="What is best?", **kw):
    return Job(model, prompt, prompt, **kw)


def test_flops_on_the_shared_path_full_path_lm_head_and_a_slice():
    spec = registry.get_spec("Skywork/Skywork-Reward-Gemma-2-27B")
    n, v, tpl = non_embedding_params(spec.arch, spec.family), spec.arch["vocab"], TEMPLATES["gemma2"]
    prefix = tpl.prefix + 4
    shared = job_cost(_job())
    assert (shared.path, shared.candidates, shared.new, shared.prefix) == ("shared_prefix", v, 3, prefix)
    assert shared.flops == 2 * n * (v * 3 + prefix)
    full = job_cost(_job(mode="paper"))
    assert full.path == "full" and full.flops == 2 * n * v * (prefix + 3) == shared.full_flops
    assert job_cost(_job(tokens="0:1000")).candidates == 1000
    assert job_cost(_job(tokens="255000:")).candidates == 1000
    assert job_cost(_job(tokens="1,2,3")).candidates == 3  # ids, as a plan now may give them (a TypeError before)
    lm = job_cost(_job(load=(("head", "lm"),)))
    assert lm.path == "prefix_logits" and lm.flops == 2 * (n * prefix + spec.arch["hidden"] * v)
    assert job_cost(_job("tiny-llama")) is None   # no architecture recorded: not estimated
    h100 = GPUS["h100"]
    assert shared.seconds(h100, 0.5) == pytest.approx(shared.flops / (989e12 * 0.5))


def _jobs(model, n, load=()):
    return [Job(model, f"p{i}", f"p{i}", load=load) for i in range(n)]


def _covers(groups, jobs):
    """Every job exactly once, each group one model and load, its jobs consecutive prompts of that model."""
    flat = [j for g in groups for j in g.jobs]
    assert sorted(flat, key=jobs.index) == jobs and len(flat) == len(jobs)
    for g in groups:
        assert all((j.model, j.load) == (g.model, g.load) for j in g.jobs)
        idx = [jobs.index(j) for j in g.jobs]
        assert idx == list(range(idx[0], idx[0] + len(idx)))


def test_one_group_per_model_with_one_worker_or_none():
    jobs = _jobs("a", 4) + _jobs("b", 4) + _jobs("b", 2, load=(("dtype", "float32"),))
    for workers in (None, 1):
        groups = worker_groups(jobs, workers)
        assert [(g.model, g.load, len(g.jobs), g.parts) for g in groups] == [
            ("a", (), 4, 1), ("b", (), 4, 1), ("b", (("dtype", "float32"),), 2, 1)]
        _covers(groups, jobs)


def test_more_workers_than_models_split_every_model():
    jobs = _jobs("a", 4) + _jobs("b", 4)
    groups = worker_groups(jobs, 4)
    assert [(g.model, g.part, g.parts, len(g.jobs)) for g in groups] == [
        ("a", 1, 2, 2), ("a", 2, 2, 2), ("b", 1, 2, 2), ("b", 2, 2, 2)]
    _covers(groups, jobs)
    assert makespan([g.cost for g in groups], 4)[0] == 2


def test_a_model_that_dominates_the_cost_is_split_and_the_plan_ends_sooner():
    jobs = _jobs("big", 6) + _jobs("s1", 3) + _jobs("s2", 3)
    cost = {j: 10.0 if j.model == "big" else 1.0 for j in jobs}.get
    groups = worker_groups(jobs, 3, cost)
    parts = {g.model: g.parts for g in groups}
    assert parts["big"] > 1 and parts["s1"] == parts["s2"] == 1
    _covers(groups, jobs)
    unsplit = worker_groups(jobs, 1, cost)
    assert makespan([g.cost for g in groups], 3)[0] < makespan([g.cost for g in unsplit], 3)[0] == 60
    assert makespan([g.cost for g in groups], 3)[0] <= 30


def test_a_job_of_unknown_cost_counts_as_the_median():
    jobs = _jobs("a", 2) + _jobs("b", 2)
    cost = {jobs[0]: 4.0, jobs[1]: 4.0, jobs[2]: None, jobs[3]: 2.0}.get
    assert [g.cost for g in worker_groups(jobs, 1, cost)] == [8.0, 6.0]   # median of 4, 4, 2


def test_makespan_is_longest_processing_time_first():
    span, where = makespan([2, 3, 2, 3, 2], 2)
    assert span == 7 and where[1] != where[3]    # LPT: 3|3, then 2, 2, 2 to the least loaded (optimum is 6)
    assert makespan([5, 1], 4)[0] == 5
    with pytest.raises(SweepError, match="at least 1"):
        makespan([1], 0)


@pytest.fixture(scope="module")
def paper(data_dir):
    return estimate(PAPER_PLAN, workers=4)


def test_the_paper_plan_estimate(paper):
    assert len(paper.costs) == 540 and not paper.unknown
    assert {c.path for c in paper.costs} == {"shared_prefix"}
    hours = paper.total_seconds / 3600
    assert paper.wall[1] == pytest.approx(paper.total_seconds)           # one worker runs everything
    walls = [paper.wall[w] for w in WORKER_COUNTS]
    assert walls == sorted(walls, reverse=True)
    longest = max(paper.seconds(c) for c in paper.costs)
    for w in WORKER_COUNTS:
        assert paper.wall[w] >= max(paper.total_seconds / w, longest) - 1e-6
    big = {g.model: g.parts for g in paper.groups}
    assert big["nicolinho/QRM-Gemma-2-27B"] > 1 and big["RLHFlow/ArmoRM-Llama3-8B-v0.1"] == 1
    text = paper.report()
    assert text.startswith("ESTIMATE, not a measurement") and "assumed 50% MFU" in text
    assert f"{hours:.2f} GPU-hours" in text and len(text.splitlines()) > 560
    h200 = estimate(PAPER_PLAN, gpu="h200", mfu=0.25)
    assert h200.total_seconds == pytest.approx(2 * paper.total_seconds)   # same peak, half the MFU
    with pytest.raises(SweepError, match="unknown GPU"):
        estimate(PAPER_PLAN, gpu="a100")
    with pytest.raises(SweepError, match="mfu"):
        estimate(PAPER_PLAN, mfu=50)


def _quoted_estimates(doc: Path) -> list[tuple[list[str], list[str]]]:
    """(command arguments, output lines) of every fenced block that quotes `rmlib plan ... --estimate`."""
    out = []
    for block in re.findall(r"```text\n(.*?)```", doc.read_text(), flags=re.S):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith("$ rmlib plan") and "--estimate" in lines[0]:
            out.append((lines[0].split()[2:], [ln for ln in lines[1:] if ln.strip() and ln.strip() != "..."]))
    return out


@pytest.mark.parametrize("doc", ["README.md", "book/scale_out.md"])
def test_the_docs_quote_what_the_estimate_prints(doc, data_dir, capsys, monkeypatch):
    from rmlib.cli import main
    root = Path(__file__).parents[3]
    monkeypatch.chdir(root)
    quoted = _quoted_estimates(root / doc)
    assert quoted, f"{doc} quotes no `rmlib plan ... --estimate` output"
    for args, lines in quoted:
        assert main(args) == 0
        printed = capsys.readouterr().out.splitlines()
        assert len(lines) >= 10
        missing = [ln for ln in lines if ln not in printed]
        assert not missing, f"{doc} quotes lines that `rmlib {' '.join(args)}` does not print: {missing}"
