"""rmlib.registry: what a model id names, without loading it."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from rmlib import registry, trained
from rmlib.models import ModelError, load_model


def test_reference_lm():
    assert registry.reference_lm("smollm2-135m-instruct") == "smollm2-135m-instruct"
    assert registry.reference_lm("Ray2333/GRM-gemma2-2B-rewardmodel-ft") is None


@pytest.mark.parametrize("model_id", [None, "", 42])
def test_a_model_id_that_is_not_a_string_is_named(model_id):
    """#39 item 8: load_model(None) gave "TypeError: expected string or bytes-like object"."""
    with pytest.raises(ModelError, match=f"a model id is a non-empty string .*not {model_id!r}"):
        load_model(model_id)


@pytest.mark.parametrize("base", ["42", "[tiny-llama]", "''"])
def test_a_run_file_whose_base_model_is_not_an_id_is_refused(base, tmp_path):
    """#39 item 6: `base_model: 42` in a folder's rmlib_run.yaml was a TypeError inside the registry."""
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (tmp_path / trained.RUN_FILE).write_text(f"base_model: {base}\nweights: partial\n")
    with pytest.raises(ModelError, match=r"run file .* is damaged \(its base_model is .*, not a model id\)"):
        registry.get_spec(f"local:{tmp_path}")


def test_every_native_head_says_whether_its_layout_was_read_or_inferred():
    from rmlib.models.native_rms import NATIVE_ARCHITECTURES  # noqa: F401 - the heads rmlib implements
    marked = {k: s.head_layout for k, s in registry.registry().items() if s.head_layout}
    assert marked == {"RLHFlow/ArmoRM-Llama3-8B-v0.1": "read", "nicolinho/QRM-Llama3.1-8B": "read",
                      "LxzGordon/URM-LLaMa-3.1-8B": "read", "nicolinho/QRM-Gemma-2-27B": "inferred"}
    native_readers = {"armo_gated", "qrm_expectation", "urm_column0"}
    assert {k for k, s in registry.registry().items() if s.score in native_readers} == set(marked)


def test_split_available_names_an_absent_local_rm_and_lets_a_typo_fail_later(tmp_path, monkeypatch):
    """The one check every chapter uses before scoring ``local:`` RMs (the finetuning chapter trains them)."""
    from rmlib.registry import split_available

    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    present, absent = split_available(["tiny-llama", "local:not-trained-here", "no-such-model"])
    assert present == ["tiny-llama", "no-such-model"] and list(absent) == ["local:not-trained-here"]
    assert "no trained RM" in absent["local:not-trained-here"]


def test_the_registry_reads_only_the_registry():
    """#41 item 4: a ``local:`` id is resolved through rmlib.trained, the one module that knows a training export's
    files; the registry names none of them and reads no checkpoint folder itself."""
    import ast
    import inspect

    source = inspect.getsource(registry)
    imported = {n.module for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)}
    assert "rmlib.storage.integrity" not in imported and "rmlib.config" not in imported
    for name in ("rmlib_run.yaml", "RUN_FILE", "config.json", "step-", "read_manifest"):
        assert name not in source, name
    assert trained.local_run("tiny-llama") is None  # not a local id: the registry's own entry answers


def test_lineage_is_the_pretraining_family_and_base_stays_what_the_chapters_group_by():
    """#66 item 7: the registry called SmolLM2 `base: Llama`, its architecture, not Meta's pretraining, and that was
    all it said of its family. ``lineage`` is the pretraining lineage (the paper's sense of family); ``base`` stays what
    the chapters' computed family tables and implicit_rewards' Gemma−Llama panel group by."""
    specs = registry.registry()
    smol = specs["smollm2-135m-instruct"]
    assert smol.lineage == "SmolLM" and smol.base == "Llama" and smol.developer == "HuggingFaceTB"
    paper = [s for s in specs.values() if s.source == "hub"]
    assert len(paper) == 10 and all(s.lineage == s.base for s in paper)  # the paper RMs: their pretraining family
    assert all(s.lineage for s in specs.values() if s.source != "tiny")
    assert all(s.lineage is None for s in specs.values() if s.source == "tiny")  # random weights: no lineage
    info = registry.model_info(["smollm2-135m-instruct", "tiny-llama"]).set_index("model")
    assert info.loc["smollm2-135m-instruct", ["family", "lineage"]].tolist() == ["Llama", "SmolLM"]
    assert pd.isna(info.loc["tiny-llama", "lineage"])


def test_an_rm_rmlib_trained_takes_its_base_lms_lineage(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (tmp_path / trained.RUN_FILE).write_text("base_model: smollm2-135m-instruct\nweights: partial\n")
    spec = registry.get_spec(f"local:{tmp_path}")
    assert (spec.lineage, spec.base) == ("SmolLM", "Llama")
