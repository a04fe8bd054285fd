"""Stamps: a chapter reruns only when its template, its parameters, the source files it ran (the rmlib and rmbook
modules its kernel imported, the prose templates it rendered, the packages' YAML), the project's own data files, or
the results it reads changed, the ``local:`` models it swept now hold other weights (their content fingerprints,
recorded by its kernel: :func:`rmbook.book.imported.read_models`), or the installed packages changed
(:func:`environment_lock`: the name and version of every distribution in the environment).

A stamp also holds the sha256 of the page it describes (:func:`page_problem`): a page that an interrupted or a
second run rewrote is never current, and the HTML build leaves out any page without a stamp that matches it.

``book/_executed/<name>.stamp`` holds a content hash of everything an executed chapter depends on (and, since the
runner reports an estimated remaining time, how long the chapter took), so a warm ``make book`` only rebuilds the
(incremental) HTML.
"""
from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata
from pathlib import Path

from rmbook.book.chapters import EXECUTED, RESULTS_PARAMETER, ROOT, Chapter, chapter
from rmbook.results import results_path, results_problem
from rmlib.errors import RmlibError
from rmlib.registry import get_spec
from rmlib.trained import folder_fingerprint

__all__ = ["SOURCE_ROOT", "PACKAGES", "PROJECT_DATA", "source_files", "project_data_files", "ran_files", "dependencies",
           "content_hash", "new_stamp", "stamp_path", "stale_reason", "is_current", "environment_lock", "model_fingerprints",
           "page_problem"]

SOURCE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding both packages (src/): files are named from it
PACKAGES = ("rmlib", "rmbook")  # the library and the book: a chapter may run source of either
# what a chapter's kernel reads from the package: code, the registry and other YAML, and the prose templates
# (chapters/<name>/prose.md.j2, rendered while the chapter runs: an edited sentence must rerun its page)
SOURCE_SUFFIXES = {".py", ".yaml", ".yml", ".j2"}
PROJECT_DATA = ROOT / "data"  # files the project writes (data/*.yaml, e.g. the blinding decisions); not data/external


def source_files() -> list[Path]:
    """Every source file of the two packages (what a stamp hashes when no complete record says which ran)."""
    return sorted(p for package in PACKAGES for p in (SOURCE_ROOT / package).rglob("*")
                  if p.is_file() and p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts
                  and not _parameter_file(p))


def _parameter_file(path: Path) -> bool:
    """A chapter's parameter file (``rmbook/chapters/<name>/params*.yaml``): the runner reads it and the stamp hashes
    the values it gives, not the file (an edit to one chapter's parameters leaves the others current)."""
    return path.name.startswith("params.") and path.parent.parent == SOURCE_ROOT / "rmbook" / "chapters"


def ran_files(recorded: list[str] | None) -> list[str] | None:
    """The source files a chapter's stamp hashes, relative to :data:`SOURCE_ROOT`: the files its kernel recorded
    (:mod:`rmbook.book.imported`) and every YAML file of the packages (data the code reads, not imported) other than
    the chapters' parameter files; None (every file) when nothing complete was recorded."""
    if recorded is None:
        return None
    yaml_files = [str(p.relative_to(SOURCE_ROOT)) for p in source_files()
                  if p.suffix in {".yaml", ".yml"} and not _parameter_file(p)]
    return sorted(set(recorded) | set(yaml_files))


def project_data_files() -> list[Path]:
    """The data files the project writes (top level of ``data/``), which chapters read like code."""
    return sorted(p for p in PROJECT_DATA.glob("*") if p.is_file() and p.suffix in {".yaml", ".yml"})


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _chapter(ch: str | Chapter) -> Chapter:
    return ch if isinstance(ch, Chapter) else chapter(ch)


def _hash(deps: dict) -> str:
    return _sha(json.dumps(deps, sort_keys=True).encode())


def _file_sha(relative: str) -> str | None:
    p = SOURCE_ROOT / relative
    return _sha(p.read_bytes()) if p.is_file() else None  # a file since removed: a change like any other


@functools.cache
def environment_lock() -> str:
    """sha256 of every installed distribution's name and version (the environment as resolved, once per process):
    a transformers or torch bump changes what a chapter computes, so it reruns every chapter."""
    pins = sorted({f"{(d.metadata['Name'] or '').lower()}=={d.version}" for d in metadata.distributions()})
    return _sha("\n".join(pins).encode())


def model_fingerprints(models: dict) -> dict[str, dict[str, str]]:
    """{id: {"path", "fingerprint"}} of ``local:`` models as their folders hold them now
    (:func:`rmlib.trained.folder_fingerprint`), each read at the folder its run used (``models``: {id: {"path": ...}},
    as a stamp records them; an id alone is resolved here). The folder, not the id: a ``local:`` id resolves through
    ``RMLIB_CACHE_DIR``, which the run (the tests' isolated caches) may have set and the check may not. A model that
    is gone or damaged gets a line saying so, which differs from any fingerprint."""
    out = {}
    for model_id, was in models.items():
        path = was.get("path") if isinstance(was, dict) else None
        try:
            path = path or get_spec(model_id).path
            out[model_id] = {"path": str(path), "fingerprint": folder_fingerprint(model_id, path)}
        except (RmlibError, OSError) as e:
            out[model_id] = {"path": str(path or ""), "fingerprint": f"unavailable: {str(e)[:200]}"}
    return out


def dependencies(ch: str | Chapter, params: dict, files: list[str] | None = None, models: dict | None = None) -> dict:
    """Hashes of everything an executed chapter depends on: template, parameters, the packages' source files (``files``,
    relative to :data:`SOURCE_ROOT`: those the chapter ran, :func:`ran_files`; None: every one), each of the project's
    data files, the installed packages (:func:`environment_lock`), the ``local:`` models it swept (``models``: ids,
    as its stamp records them) and the results files of the chapters it reads (``rmlib.reads_results``, under its
    ``RESULTS_DIR``).

    ``RESULTS_DIR`` itself is left out of the parameter hash: it says where results go, not what is computed.
    """
    ch = _chapter(ch)
    inputs = {k: v for k, v in params.items() if k != RESULTS_PARAMETER}
    if files is None:
        files = [str(p.relative_to(SOURCE_ROOT)) for p in source_files()]
    deps = {
        "template": _sha(ch.template.read_bytes()),
        "parameters": _sha(json.dumps(inputs, sort_keys=True, default=str).encode()),
        "source": {f: _file_sha(f) for f in files},
        "data": {p.name: _sha(p.read_bytes()) for p in project_data_files()},
        "environment": environment_lock(),
    }
    if models:
        deps["models"] = model_fingerprints(dict(sorted(models.items())))
    sources = ch.reads
    if sources:
        folder = params.get(RESULTS_PARAMETER)
        deps["results"] = {}
        for src in sources:
            p = results_path(src, folder) if folder else None
            deps["results"][src] = _sha(p.read_bytes()) if p is not None and p.is_file() else None
    return deps


def content_hash(ch: str | Chapter, params: dict, files: list[str] | None = None) -> str:
    """One hash over :func:`dependencies`; the stamp stores it."""
    return _hash(dependencies(ch, params, files))


def new_stamp(before: dict, recorded: list[str] | None, params: dict, seconds: float, page: Path | None = None,
              models: dict[str, dict] | None = None) -> dict:
    """The stamp of a run: its :func:`dependencies` hashed before it ran (an edit made while it ran leaves it
    stale), narrowed to the package files its kernel ran (:func:`ran_files`; every file when ``recorded`` is None),
    with the ``local:`` models its kernel swept as it saw them (``models``), how long it took, and the sha256 of the
    page it wrote (``page``)."""
    files = ran_files(recorded)
    deps = dict(before)
    if files is not None:
        deps["source"] = {f: before["source"].get(f) for f in files}
    if models:
        deps["models"] = dict(sorted(models.items()))
    stamp = {"hash": _hash(deps), "parameters": params, "dependencies": deps, "seconds": round(seconds, 1)}
    if page is not None:
        stamp["page"] = _sha(Path(page).read_bytes())
    return stamp


def stamp_path(name: str, output_dir: Path = EXECUTED) -> Path:
    return Path(output_dir) / f"{name}.stamp"


def page_problem(name: str, output_dir: Path = EXECUTED) -> str | None:
    """Why ``output_dir/<name>.ipynb`` is not a finished page (None when its stamp describes it): no page, no stamp
    (its last run failed or was stopped), or a page other than the one its run wrote (#62: a second run of the same
    page, or one stopped half way, left a half-executed page that was served as current and published)."""
    out, stamp = Path(output_dir) / f"{name}.ipynb", stamp_path(name, output_dir)
    if not out.is_file():
        return "never executed"
    if not stamp.is_file():
        return "its last run failed or did not finish (no stamp)"
    try:
        page = json.loads(stamp.read_text()).get("page")
    except (ValueError, AttributeError):
        return "unreadable stamp"
    if page != _sha(out.read_bytes()):
        return "the page is not the one its run wrote (a run stopped half way, or two runs at once)"
    return None


def stale_reason(ch: str | Chapter, params: dict, output_dir: Path = EXECUTED) -> str | None:
    """Why chapter ``ch`` must run again (None when its executed copy is current)."""
    ch = _chapter(ch)
    name = ch.name
    problem = page_problem(name, output_dir)
    if problem is not None:
        return "never executed (or its last run failed)" if problem == "never executed" else problem
    folder = params.get(RESULTS_PARAMETER)
    if folder and ch.declares_results:
        problem = results_problem(name, folder)  # missing, or changed since the chapter wrote it
        if problem is not None:
            return problem
    try:
        old = json.loads(stamp_path(name, output_dir).read_text())
        was = old["dependencies"]
        # the files and models this chapter ran, as its stamp lists them
        now = dependencies(ch, params, sorted(was["source"]), models=was.get("models") or {})
        if old["hash"] == _hash(now):
            return None
    except (ValueError, KeyError, TypeError, AttributeError):
        return "unreadable stamp"
    return _what_changed(ch, was, now)


def _what_changed(ch: Chapter, was: dict, now: dict) -> str:
    """The first difference between a stamp's dependencies and today's, in words."""
    if was["template"] != now["template"]:
        return f"{ch.template.relative_to(ROOT)} changed"
    if was["parameters"] != now["parameters"]:
        return "parameters changed"
    changed_results = sorted(k for k in set(was.get("results", {})) | set(now.get("results", {}))
                             if was.get("results", {}).get(k) != now.get("results", {}).get(k))
    if changed_results:
        return "results changed: " + ", ".join(changed_results)
    was_data, now_data = was.get("data", {}), now.get("data", {})
    changed_data = sorted(f for f in set(was_data) | set(now_data) if was_data.get(f) != now_data.get(f))
    if changed_data:
        return "project data changed: " + ", ".join(f"data/{f}" for f in changed_data)
    if was.get("environment") != now.get("environment"):
        return "installed packages changed"
    was_models, now_models = was.get("models") or {}, now.get("models") or {}
    changed_models = sorted(m for m in set(was_models) | set(now_models) if was_models.get(m) != now_models.get(m))
    if changed_models:
        return "model weights changed: " + ", ".join(changed_models[:5])
    changed = sorted(f for f in set(was["source"]) | set(now["source"]) if was["source"].get(f) != now["source"].get(f))
    return "source changed: " + ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")


def is_current(ch: str | Chapter, params: dict, output_dir: Path = EXECUTED) -> bool:
    return stale_reason(ch, params, output_dir) is None
