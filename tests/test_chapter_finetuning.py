"""The fine-tuning ablation chapter, run with tiny parameters; asserts on its outputs."""
from __future__ import annotations

import json

from rmlib.book import run_notebook

from conftest import notebook_markdown as _markdown



def test_finetuning_chapter_tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    res_path = tmp_path / "finetuning.json"
    r = run_notebook("finetuning", tiny=True, output_dir=tmp_path, force=True, log=lambda *_: None,
                     overrides={"RESULTS_PATH": str(res_path)})
    out, text = json.loads(res_path.read_text()), _markdown(r.path)
    runs = out["runs"]
    assert {x["base"] for x in runs} == {"tiny-llama", "tiny-qwen2"}
    # identical data and steps across bases, and the loss goes down on the easy synthetic rule
    assert out["same_data"] and len({x["data_hash"] for x in runs}) == 1 and len({x["steps"] for x in runs}) == 1
    assert all(x["last_loss"] < x["first_loss"] for x in runs), runs
    final = [m for m in out["metrics"] if m["step"] == 8]
    assert len(final) == 2 and all(m["accuracy"] > 0.6 for m in final), final  # chance is 0.5
    assert {m["step"] for m in out["metrics"]} == {4, 8}
    # RMs and base LMs are both present and labelled by kind
    assert set(out["reward_kinds"]) == {"RM score", "LM log-prob (implicit reward)"}
    assert len(out["imprint"]) == 2 * 2 and out["n_published_final"] > 0
    assert "same** data" in text and "no across-seed interval" in text and "ABLATION_SOURCES" in text
