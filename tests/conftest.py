"""Shared fixtures: tiny random models (fast) and the real embedded SmolLM2 (loaded once)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from rmlib.models import load_model

PROMPT = "What, in one word, is the greatest thing ever?"
FAMILIES = ["llama", "gemma2", "gemma3", "qwen2"]


@pytest.fixture(scope="session")
def tiny_rms():
    return {f: load_model(f"tiny-{f}", head="rm", dtype="float32", allow_untrained_head=True) for f in FAMILIES}


@pytest.fixture(scope="session")
def tiny_lms():
    return {f: load_model(f"tiny-{f}", head="lm", dtype="float32") for f in FAMILIES}


@pytest.fixture(scope="session")
def smollm2_lm():
    return load_model("smollm2-135m-instruct", head="lm", dtype="float32")


def notebook_markdown(nb_path) -> str:
    """All markdown an executed notebook displayed; fails on any error output."""
    nb = json.loads(nb_path.read_text())
    parts = []
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            assert o["output_type"] != "error", o
            parts.append("".join(o.get("data", {}).get("text/markdown", "")))
    return "\n".join(parts)


# --------------------------------------------------------------------------- chapters run once per session

@dataclass
class ChapterRun:
    """One tiny-parameter run of a chapter: its executed notebook, results and results folder."""

    path: Path
    results: dict
    results_dir: Path

    @property
    def markdown(self) -> str:
        return notebook_markdown(self.path)


@pytest.fixture(scope="session")
def run_chapter(tmp_path_factory):
    """run_chapter(name, isolated_cache=False, **overrides) -> ChapterRun, executed once per session and parameters.

    Chapters run with their tiny defaults (plus overrides) under papermill; RESULTS_DIR is set by the book runner to
    <output>/results. Runs with the same parameters are shared between tests (the claims page reads several).
    ``isolated_cache`` points RMLIB_CACHE_DIR at a session folder, for runs that sweep or train tiny random models;
    the embedded models keep the normal cache so their sweeps are reused across sessions.
    """
    from rmlib.book import run_chapter as run_notebook
    from rmlib.storage import read_results as read

    root = tmp_path_factory.mktemp("chapters")
    done: dict[tuple, ChapterRun] = {}

    def run(name: str, isolated_cache: bool = False, **overrides) -> ChapterRun:
        key = (name, isolated_cache, json.dumps(overrides, sort_keys=True, default=str))
        if key not in done:
            out = root / f"{name}-{len(done)}"
            with pytest.MonkeyPatch.context() as mp:
                if isolated_cache:
                    mp.setenv("RMLIB_CACHE_DIR", str(root / "cache"))
                res = run_notebook(name, tiny=True, output_dir=out, force=True, log=lambda *_: None,
                                   overrides=overrides)
            results_dir = Path(res.parameters["RESULTS_DIR"])
            done[key] = ChapterRun(res.path, read(name, results_dir), results_dir)
        return done[key]

    return run


# The parameters each chapter test uses; the claims test reads the same runs.
CHAPTER_RUNS = {
    "heterogeneity": dict(MODE="both", TOKENS=300, N_ITEMS=200, N_SHUFFLES=2, N_PERMUTATIONS=199),
    "distributions": dict(MODE="both", TOKENS=300),
    "elo_misalignment": {},
    "framing": {},
    "mere_exposure": {},
    "identity_terms": {},
    "big_two": dict(isolated_cache=True, MODE="compute",
                    MODELS=["tiny-gemma3", "tiny-gemma2", "tiny-llama", "tiny-qwen2"],
                    COMPUTE_PROMPT_KEYS=["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"],
                    WORDS=["accuracy", "ambition", "aptitude", "capability", "affection", "affinity", "aid",
                           "alliance", "love", "freedom"]),
    "moral_foundations": dict(isolated_cache=True, MODE="compute", MODELS=["tiny-gemma3", "tiny-gemma2", "tiny-llama"],
                              COMPUTE_PROMPT_KEYS=["best_ever_one", "greatest_ever_one", "worst_ever_one",
                                                   "bad_ever_one"], COMPUTE_WORDS_PER_CATEGORY=2),
    "implicit_rewards": dict(isolated_cache=True),
    "finetuning": dict(isolated_cache=True, SEEDS=[0, 1], ABLATION_SOURCES=["hh_rlhf_harmless"], QUANTITY_PAIRS=[16]),
}
