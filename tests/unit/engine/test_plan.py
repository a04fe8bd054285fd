"""Plans: expansion into jobs grouped by model, checks with clear messages, and the cache listing."""
from __future__ import annotations

import json

import pytest

from rmlib.engine import SweepError, expand, load_plan, plan_status

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
])
def test_bad_plans_fail_before_any_job(bad, message):
    with pytest.raises((SweepError, ValueError), match=message):
        load_plan(bad)


def test_unknown_prompt_key_is_named(data_dir):
    with pytest.raises(ValueError, match="unknown prompt keys"):
        expand({**PLAN, "prompts": ["gratest"]})


def test_status_lists_complete_results_only(tmp_path, data_dir):
    jobs = expand(PLAN)
    done = tmp_path / "k1"
    done.mkdir()
    (done / "meta.json").write_text(json.dumps({"model": "tiny-llama", "prompt": jobs[0].prompt, "kind": "rm",
                                                "dtype": "float32", "mode": "id_exact", "n_candidates": 320}))
    (done / "COMPLETE").write_text("{}")
    partial = tmp_path / "k2"  # shards but no COMPLETE marker: an interrupted job is still to run
    partial.mkdir()
    (partial / "meta.json").write_text(json.dumps({"model": "tiny-llama", "prompt": jobs[1].prompt, "kind": "rm",
                                                   "dtype": "float32", "mode": "id_exact"}))
    status = plan_status(PLAN, cache_root=tmp_path)
    assert [d for _, d in status] == [True, False, False, False, False, False]
    assert [d for _, d in plan_status({**PLAN, "load": {"dtype": "bfloat16"}}, cache_root=tmp_path)] == [False] * 6
