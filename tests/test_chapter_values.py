"""The Big Two, Moral Foundations and implicit-rewards chapters, run with tiny parameters; asserts on their outputs."""
from __future__ import annotations

import json

import pytest

from rmlib.book import run_notebook

from conftest import notebook_markdown as _markdown

TINY_LMS = ["tiny-gemma3", "tiny-gemma2", "tiny-llama", "tiny-qwen2"]
PROMPTS = ["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"]



@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))

    def go(name, **overrides):
        res_path = tmp_path / f"{name}.json"
        r = run_notebook(name, tiny=True, output_dir=tmp_path, force=True, log=lambda *_: None,
                         overrides={"RESULTS_PATH": str(res_path), **overrides})
        return json.loads(res_path.read_text()), _markdown(r.path)
    return go


def _check_published(pub, n_categories, n_words_note=None):
    assert pub["unit"] == "model" and pub["models_per_family"] == {"Gemma": 4, "Llama": 6}
    assert pub["n_panels"] == n_categories * 2
    # the FDR count agrees with the panel table it summarises
    assert pub["n_significant_fdr"] == sum(p["p_fdr"] < 0.05 for p in pub["panels"])
    a = pub["anova"]
    assert a["category"]["df"] == n_categories - 1 and a["model"]["df"] == 9
    # median ranks: 10 models x 54 prompts x n_categories rows, minus one cell mean per category x valence x model
    assert a["category"]["df_resid"] == 10 * 54 * n_categories - n_categories * 2 * 10
    assert pub["mixed"]["n_groups"] == 10 and pub["min_attainable_p"] == pytest.approx(2 / 210)


def test_big_two_chapter_published_and_compute(run):
    out, text = run("big_two", MODE="compute", MODELS=TINY_LMS, COMPUTE_PROMPT_KEYS=PROMPTS,
                    WORDS=["accuracy", "ambition", "aptitude", "capability", "affection", "affinity", "aid",
                           "alliance"])
    _check_published(out["results"]["published"], 2)
    comp = out["results"]["compute"]
    assert comp["unit"] == "prompt" and comp["models_per_family"] == {"Gemma": 2, "Llama": 1, "Qwen": 1}
    assert out["direction_agreement"]["panels"] == 4
    assert "after FDR" in text and "LM log-prob (implicit reward)" in text
    assert "compare these particular models" in text


def test_moral_foundations_chapter(run):
    out, text = run("moral_foundations", MODE="compute", MODELS=TINY_LMS[:3], COMPUTE_PROMPT_KEYS=PROMPTS,
                    COMPUTE_WORDS_PER_CATEGORY=2)
    _check_published(out["results"]["published"], 10)
    assert out["results"]["compute"]["n_panels"] == 20
    assert "Under positive prompts" in text and "seeded sample of 20 words" in text


def test_implicit_rewards_chapter(run):
    out, text = run("implicit_rewards")
    assert out["within_min_tau"] > 0.9999                      # logits and log-probs rank alike within a model
    assert all(e["verdict"].startswith("unknown") for e in out["instruct_evidence"])   # tiny models: no claim
    models = {r["model"] for r in out["big2"]}
    assert len(models) == 6 and sum(m.startswith("MWLR(") for m in models) == 3
    assert len(out["big2"]) == 12 and out["mfd2"]["n_panels"] == 6 * 5 * 2
    assert "Families with both a base and an instruct model here: **none**" in text
    assert out["zipf_rm_top"] > 0
