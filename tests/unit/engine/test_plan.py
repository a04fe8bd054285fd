"""Plans: expansion into jobs grouped by model, each model's loading options, checks with clear messages, and the
cache listing."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rmlib import registry
from rmlib.engine import SweepError, expand, load_plan, plan_status
from rmlib.engine.plan import model_load

PAPER_PLAN = Path(__file__).parents[3] / "plans" / "paper_rms.yaml"

PLAN = {"models": ["tiny-llama", "tiny-gemma2", "tiny-qwen2"], "prompts": ["greatest", "What is best?"],
        "load": {"head": "rm", "dtype": "float32"}}


def test_expand_is_models_times_prompts_grouped_by_model(data_dir):
    jobs = expand(PLAN)
    assert [(j.model, j.prompt_key) for j in jobs] == [(m, p) for m in PLAN["models"] for p in PLAN["prompts"]]
    assert jobs[0].prompt != "greatest" and "greatest" in jobs[0].prompt  # a key becomes the study's prompt text
    assert jobs[1].prompt == "What is best?"                              # text with a space is the prompt itself
    assert dict(jobs[0].load) == {"head": "rm", "dtype": "float32"}


def test_plan_from_yaml_equals_dict(tmp_path, data_dir):
    import yaml
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(PLAN))
    assert expand(path) == expand(PLAN)


@pytest.mark.parametrize("bad, message", [
    ({"prompts": ["greatest"]}, "no 'models'"),
    ({**PLAN, "modles": []}, "unknown plan fields"),
    ({**PLAN, "models": []}, "non-empty list"),
    ({**PLAN, "models": ["a", "a"]}, "twice"),
    ({**PLAN, "kind": "gcg"}, "kind must be"),
    ({**PLAN, "tokens": "a:b"}, "not a vocabulary slice"),
    ({**PLAN, "load": {"precision": "fp8"}}, "not loading options"),
    ({**PLAN, "batch_size": 0}, "positive integer"),
    ({**PLAN, "models": [{"id": "tiny-llama", "lod": {"dtype": "float32"}}]}, "a models entry that is a mapping"),
    ({**PLAN, "models": [{"load": {"dtype": "float32"}}]}, "a models entry that is a mapping"),
    ({**PLAN, "models": [{"id": "tiny-llama", "load": {"precision": "fp8"}}]}, "the load of tiny-llama: .*not loading"),
    ({**PLAN, "models": [{"id": "tiny-llama", "load": "float32"}]}, "the load of tiny-llama must be a mapping"),
    ({**PLAN, "models": ["tiny-llama", {"id": "tiny-llama", "load": {"seed": 1}}]}, "twice"),
    ({**PLAN, "load": {"revision": "a" * 40}}, "a revision is one model's commit"),
    # #24 item 12: each of these once passed load_plan and failed job by job after the workers started
    ({**PLAN, "mode": "exact"}, "mode must be one of"),
    ({**PLAN, "load": {"dtype": "fp8"}}, "unknown dtype 'fp8'"),
    ({**PLAN, "models": [{"id": "tiny-llama", "load": {"seed": 1.5}}]}, "seed=1.5"),
    ({**PLAN, "batch_size": True}, "positive integer"),
    ({**PLAN, "tokens": "5:2"}, "empty or reversed"),
    ({**PLAN, "tokens": "-5:"}, "empty or reversed"),
    ({**PLAN, "models": ["tiny-lama"]}, "the plan's model 'tiny-lama': unknown model id"),
    ({**PLAN, "models": ["local:never-trained-xyz"]}, "no trained RM"),
])
def test_bad_plans_fail_before_any_job(bad, message):
    with pytest.raises((SweepError, ValueError), match=message):
        load_plan(bad)


def test_unknown_prompt_key_is_named(data_dir):
    with pytest.raises(ValueError, match="unknown prompt keys"):
        expand({**PLAN, "prompts": ["gratest"]})


def test_a_prompt_named_by_its_key_and_by_its_text_is_a_duplicate(data_dir):
    text = expand({**PLAN, "prompts": ["greatest"]})[0].prompt
    with pytest.raises(SweepError, match="name one prompt twice"):
        expand({**PLAN, "prompts": ["greatest", text]})


def test_status_is_never_guessed_from_meta_json(tmp_path, data_dir):
    """A complete result whose meta.json looks like the job's is not "done": only the job's request key, recorded by
    the run that computed it, says so (tests/integration/test_bad_input_plans.py); tiny models have no cheap
    fingerprint, so their jobs are unknown (None)."""
    jobs = expand(PLAN)
    done = tmp_path / "k1"
    done.mkdir()
    (done / "meta.json").write_text(json.dumps({"model": "tiny-llama", "prompt": jobs[0].prompt, "kind": "rm",
                                                "dtype": "float32", "mode": "id_exact", "n_candidates": 320}))
    (done / "COMPLETE").write_text("{}")
    assert [d for _, d in plan_status(PLAN, cache_root=tmp_path)] == [None] * 6


def test_each_model_loads_with_the_registry_then_the_plan_then_its_own_options():
    qrm, armo = "nicolinho/QRM-Llama3.1-8B", "RLHFlow/ArmoRM-Llama3-8B-v0.1"
    plan = {"models": [qrm, {"id": armo, "load": {"revision": "b" * 40, "dtype": "float32"}}, "tiny-llama"],
            "prompts": ["What is best?"], "load": {"head": "rm", "dtype": "bfloat16"}}
    loads = {j.model: dict(j.load) for j in expand(plan)}
    assert loads[qrm] == {"revision": registry.get_spec(qrm).revision, "head": "rm", "dtype": "bfloat16"}
    assert loads[armo] == {"revision": "b" * 40, "head": "rm", "dtype": "float32"}   # its own entry wins
    assert loads["tiny-llama"] == {"head": "rm", "dtype": "bfloat16"}               # no revision outside the hub
    assert model_load(plan, armo) == loads[armo]
    # no dtype in the plan: none is forced, so the loader gives the registry's (the paper's) dtype on a GPU
    jobs = expand({"models": ["Ray2333/GRM-Llama3-8B-rewardmodel-ft", qrm], "prompts": ["What is best?"]})
    assert [dict(j.load).get("dtype") for j in jobs] == [None, None]
    assert [j.gpu_dtype for j in jobs] == ["float16", "bfloat16"]


def test_remote_code_is_never_implied_by_a_plan(monkeypatch):
    spec = registry.get_spec("tiny-llama")
    monkeypatch.setitem(registry.registry(), "tiny-llama", replace(spec, trust_remote_code=True))
    with pytest.raises(SweepError, match="never implies"):
        expand({"models": ["tiny-llama"], "prompts": ["What is best?"]})
    jobs = expand({"models": [{"id": "tiny-llama", "load": {"trust_remote_code": True}}], "prompts": ["What is best?"]})
    assert dict(jobs[0].load)["trust_remote_code"] is True


def test_the_paper_plan_resolves_540_jobs_in_the_papers_dtypes_without_remote_code(data_dir):
    import torch

    from rmlib.models import LoadOptions
    from rmlib.models.devices import resolve_dtype
    jobs = expand(PAPER_PLAN)
    assert len(jobs) == 540 and len({j.model for j in jobs}) == 10
    assert all(sum(j.model == m for j in jobs) == 54 for m in {j.model for j in jobs})
    for job in jobs:
        spec, opts = registry.get_spec(job.model), LoadOptions.of(**dict(job.load))
        # what the loader would do on a GPU with these options: the paper's dtype
        assert str(resolve_dtype(spec, torch.device("cuda"), opts.dtype)).removeprefix("torch.") == spec.dtype
        assert job.gpu_dtype == spec.dtype
        assert not opts.trust_remote_code and not spec.trust_remote_code
        assert opts.revision == spec.revision
    assert {j.gpu_dtype for j in jobs} == {"float16", "bfloat16"}


def test_status_keys_each_jobs_dtype_and_revision(tmp_path, data_dir):
    """Pinned hub models have a request key without loading: it differs by dtype and revision, and a result
    written without its index entry (a meta.json that only looks right) is not done."""
    from rmlib.engine import sweep_index
    from rmlib.models import LoadOptions
    grm, qrm = "Ray2333/GRM-Llama3-8B-rewardmodel-ft", "nicolinho/QRM-Llama3.1-8B"
    plan = {"models": [grm, qrm], "prompts": ["greatest"]}
    prompt = expand(plan)[0].prompt
    d = tmp_path / "c"
    d.mkdir()
    (d / "meta.json").write_text(json.dumps({"model": grm, "prompt": prompt, "kind": "rm", "dtype": "float16",
                                             "mode": "id_exact", "n_candidates": 128256}))
    (d / "COMPLETE").write_text("{}")
    # GRM: its registry entry pins no revision, so nothing cheap names its weights: unknown, never "done"
    assert registry.get_spec(grm).revision is None
    assert [done for _, done in plan_status(plan, cache_root=tmp_path)] == [None, False]
    keys = {sweep_index.request_key(qrm, prompt, None, LoadOptions.of(**o))
            for o in ({}, {"dtype": "float32"}, {"revision": "0" * 40}, {"seed": 1})}
    assert len(keys) == 4 and None not in keys


# ---------------------------------------------------------------- #39 items 6-8: plans that once gave a traceback,
# were read wrongly, or listed a job that `rmlib run` then refused

def test_kind_answers_without_answers_says_what_is_missing():
    """Before: KeyError: 'answers' from load_plan."""
    with pytest.raises(SweepError, match="kind: answers .* has no 'answers': add answers:"):
        load_plan({**PLAN, "kind": "answers"})


def test_an_unquoted_slice_that_yaml_reads_as_base_60_is_refused_with_how_to_quote_it(tmp_path):
    """Before: `tokens: 1:30` became 90 and was reported as "tokens '90' is not a vocabulary slice"."""
    path = tmp_path / "plan.yaml"
    path.write_text("models: [tiny-llama]\nprompts: [greatest]\ntokens: 1:30\n")
    with pytest.raises(SweepError, match=r'tokens is the number 90, not a slice: .*base-60.*quote the slice'):
        load_plan(path)
    path.write_text('models: [tiny-llama]\nprompts: [greatest]\ntokens: "1:30"\n')
    assert load_plan(path).tokens == "1:30"
    with pytest.raises(SweepError, match=r"tokens must be a vocabulary slice .* not \[1, 30\]"):
        load_plan({**PLAN, "tokens": [1, 30]})


def test_a_binary_plan_file_is_named(tmp_path):
    """Before: "'utf-8' codec can't decode byte ..." without the file's name."""
    path = tmp_path / "plan.yaml"
    path.write_bytes(bytes(range(128, 256)) * 3)
    with pytest.raises(SweepError, match=f"{path} is not a text file"):
        load_plan(path)


def test_a_local_model_with_its_own_code_is_refused_by_the_plan_as_the_loader_would(tmp_path, monkeypatch):
    """Before: `rmlib plan` listed it as an ordinary job and `rmlib run` then refused it. Only config.json is
    needed: the plan reads it, loads nothing."""
    folder = tmp_path / "own-code"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama", "architectures": ["CustomRM"],
                                                    "auto_map": {"AutoModel": "modeling_custom.CustomRM"}}))
    plan = {"models": [f"local:{folder}"], "prompts": ["What is best?"]}
    with pytest.raises(SweepError, match="runs its own code .*auto_map.*trust_remote_code: true"):
        expand(plan)
    opted_in = {**plan, "models": [{"id": f"local:{folder}", "load": {"trust_remote_code": True}}]}
    assert dict(expand(opted_in)[0].load) == {"trust_remote_code": True}
