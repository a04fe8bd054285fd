"""Run the book's notebooks with papermill and build the offline HTML.

Layout (all paths relative to the repository root):

* ``notebooks/<name>.ipynb``      template; its ``parameters`` cell holds tiny defaults (tests)
* ``notebooks/params/<name>.yaml`` full-run values used by ``make book``
* ``book/_executed/<name>.ipynb``  papermill output, rendered by the book (git-ignored)
* ``book/_executed/<name>.stamp``  content hash of template + parameters + rmlib source (+ results it reads)
* ``book/_executed/results/<name>.json``  the chapter's numbers (``RESULTS_DIR``, :mod:`rmlib.results`)
* ``book/_static/vendor/``         JS written at build time (git-ignored)

A notebook is rerun only when its stamp no longer matches, so a warm ``make book``
only rebuilds the (incremental) HTML.

Results: a chapter whose parameters cell declares ``RESULTS_DIR`` always gets one from the runner
(``<output_dir>/results``, unless the caller sets it), so its numbers are written in every run. A chapter whose
notebook metadata lists ``rmlib.reads_results`` (the claims page) runs after those chapters, refuses to run
while one of their results is missing, and its stamp hashes those results: it reruns when they change.

Command line (what the Makefile calls)::

    python -m rmlib.book vendor
    python -m rmlib.book run [NAME ...] [--params FILE] [-p KEY VALUE ...] [--force] [--tiny]
    python -m rmlib.book html [--out DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from rmlib.config import PROJECT_ROOT

ROOT = PROJECT_ROOT
NOTEBOOKS = ROOT / "notebooks"
PARAMS = NOTEBOOKS / "params"
EXECUTED = ROOT / "book" / "_executed"
VENDOR = ROOT / "book" / "_static" / "vendor"
TOC = ROOT / "_toc.yml"
BUILD = ROOT / "_build"
RMLIB_SRC = Path(__file__).resolve().parent
RESULTS_PARAMETER = "RESULTS_DIR"  # the one parameter through which every chapter writes its results
RESULTS_SUBDIR = "results"

# JS that myst-nb and Sphinx would otherwise load from CDNs: (npm package spec, file in the tarball, saved as).
# require.js + embed-amd.js render saved ipywidgets; MathJax's tex-svg.js (fonts included) renders $math$
# (_config.yml points mathjax_path at it; Sphinx adds it only to pages with math).
NPM_FILES = [
    ("requirejs@2.3.7", "package/require.js", "require.js"),
    ("@jupyter-widgets/html-manager@1.0.6", "package/dist/embed-amd.js", "embed-amd.js"),
    ("mathjax@3.2.2", "package/es5/tex-svg.js", "mathjax/tex-svg.js"),
]
# Files every page loads, in this order: vega first (it has no AMD), then require.js, then the
# widget manager that needs it. _config.yml lists the same files in html_js_files (a test checks).
VEGA_BUNDLE = "vega-embed-offline.js"  # == rmlib.charts.BUNDLE_NAME (not imported here: altair is slow to load)
PAGE_JS = [VEGA_BUNDLE, "require.js", "embed-amd.js"]
VENDOR_FILES = [VEGA_BUNDLE] + [saved for _, _, saved in NPM_FILES]


class BookError(RuntimeError):
    """A notebook, its parameters or the book build failed; the message says how to fix it."""


# --------------------------------------------------------------------------- chapters and parameters

def chapters(toc: Path = TOC) -> list[str]:
    """Names of the notebooks the table of contents takes from ``book/_executed/``, in book order."""
    if not Path(toc).is_file():
        raise BookError(f"{toc} not found: the book's table of contents must be at the repository top level")
    data = yaml.safe_load(Path(toc).read_text(encoding="utf-8")) or {}
    names: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("book/_executed/"):
                names.append(Path(f).stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    return names


def template(name: str) -> Path:
    p = NOTEBOOKS / f"{name}.ipynb"
    if not p.is_file():
        known = sorted(q.stem for q in NOTEBOOKS.glob("*.ipynb"))
        raise BookError(f"no notebook template {p}; known chapters: {known}")
    return p


def _template_json(name: str) -> dict:
    try:
        return json.loads(template(name).read_text(encoding="utf-8"))
    except ValueError as e:
        raise BookError(f"{template(name)} is not a valid notebook: {e}") from None


def declares_results(name: str) -> bool:
    """Whether the template's parameters cell declares ``RESULTS_DIR`` (read from the JSON; no papermill import)."""
    import re

    for cell in _template_json(name).get("cells", []):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            src = "".join(cell.get("source", ""))
            return re.search(rf"^{RESULTS_PARAMETER}\s*=", src, flags=re.M) is not None
    return False


def reads_results(name: str) -> list[str]:
    """Chapters whose results this chapter reads (notebook metadata ``rmlib.reads_results``), in order."""
    meta = _template_json(name).get("metadata", {}).get("rmlib", {})
    names = meta.get("reads_results", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise BookError(f"{template(name)}: metadata rmlib.reads_results must be a list of chapter names")
    return list(names)


def results_dir(output_dir: str | os.PathLike = EXECUTED) -> Path:
    """Where the runner points ``RESULTS_DIR`` for chapters executed into ``output_dir``."""
    return (Path(output_dir) / RESULTS_SUBDIR).resolve()


def declared_parameters(name: str) -> dict:
    """The template's ``parameters`` cell: {name: default}, as papermill reads it."""
    import papermill

    info = papermill.inspect_notebook(str(template(name)))
    if not info:
        raise BookError(f"{template(name)} has no cell tagged 'parameters' (add the tag so papermill can inject values)")
    return {k: v["default"] for k, v in info.items()}


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BookError(f"parameter file {path} not found") from None
    except yaml.YAMLError as e:
        raise BookError(f"parameter file {path} is not valid YAML: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BookError(f"parameter file {path} must hold a mapping of NAME: value, got {type(data).__name__}")
    return data


def parameters(name: str, *, tiny: bool = False, params_file: str | os.PathLike | None = None,
               overrides: dict | None = None, validate: bool = True) -> dict:
    """Parameters for one run: notebooks/params/<name>.yaml (unless ``tiny``), then ``params_file``,
    then ``overrides``. With ``validate`` every key must be declared in the template's parameters cell."""
    merged: dict = {}
    sources = []
    default_file = PARAMS / f"{name}.yaml"
    if not tiny and default_file.is_file():
        sources.append((default_file, _read_yaml(default_file)))
    if params_file is not None:
        sources.append((Path(params_file), _read_yaml(Path(params_file))))
    if overrides:
        sources.append(("overrides", dict(overrides)))
    declared = declared_parameters(name) if validate else None
    for origin, values in sources:
        unknown = sorted(set(values) - set(declared)) if validate else []
        if unknown:
            raise BookError(f"{origin}: parameters {unknown} are not in the parameters cell of "
                            f"{template(name)} (declared: {sorted(declared)})")
        merged.update(values)
    return merged


# --------------------------------------------------------------------------- staleness

def rmlib_source_files() -> list[Path]:
    return sorted(p for p in RMLIB_SRC.rglob("*") if p.is_file() and p.suffix in {".py", ".yaml", ".yml"}
                  and "__pycache__" not in p.parts)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dependencies(name: str, params: dict) -> dict:
    """Hashes of everything an executed chapter depends on: template, parameters, each rmlib source file, and the
    results files of the chapters it reads (``rmlib.reads_results``, under its ``RESULTS_DIR``).

    ``RESULTS_DIR`` itself is left out of the parameter hash: it says where results go, not what is computed.
    """
    inputs = {k: v for k, v in params.items() if k != RESULTS_PARAMETER}
    deps = {
        "template": _sha(template(name).read_bytes()),
        "parameters": _sha(json.dumps(inputs, sort_keys=True, default=str).encode()),
        "rmlib": {str(p.relative_to(RMLIB_SRC)): _sha(p.read_bytes()) for p in rmlib_source_files()},
    }
    sources = reads_results(name)
    if sources:
        from rmlib.results import results_path

        folder = params.get(RESULTS_PARAMETER)
        deps["results"] = {}
        for src in sources:
            p = results_path(src, folder) if folder else None
            deps["results"][src] = _sha(p.read_bytes()) if p is not None and p.is_file() else None
    return deps


def content_hash(name: str, params: dict) -> str:
    """One hash over :func:`dependencies`; the stamp stores it."""
    return _sha(json.dumps(dependencies(name, params), sort_keys=True).encode())


def stamp_path(name: str, output_dir: Path = EXECUTED) -> Path:
    return Path(output_dir) / f"{name}.stamp"


def stale_reason(name: str, params: dict, output_dir: Path = EXECUTED) -> str | None:
    """Why ``name`` must run again (None when its executed copy is current)."""
    out, stamp = Path(output_dir) / f"{name}.ipynb", stamp_path(name, output_dir)
    if not (out.is_file() and stamp.is_file()):
        return "never executed (or its last run failed)"
    folder = params.get(RESULTS_PARAMETER)
    if folder and declares_results(name):
        from rmlib.results import results_path

        if not results_path(name, folder).is_file():
            return f"its results file {results_path(name, folder)} is missing"
    try:
        old = json.loads(stamp.read_text())
        if old["hash"] == content_hash(name, params):
            return None
        was = old["dependencies"]
    except (ValueError, KeyError):
        return "unreadable stamp"
    now = dependencies(name, params)
    if was["template"] != now["template"]:
        return f"{template(name).relative_to(ROOT)} changed"
    if was["parameters"] != now["parameters"]:
        return "parameters changed"
    changed_results = sorted(k for k in set(was.get("results", {})) | set(now.get("results", {}))
                             if was.get("results", {}).get(k) != now.get("results", {}).get(k))
    if changed_results:
        return "results changed: " + ", ".join(changed_results)
    changed = sorted(f for f in set(was["rmlib"]) | set(now["rmlib"]) if was["rmlib"].get(f) != now["rmlib"].get(f))
    return "rmlib changed: " + ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")


def is_current(name: str, params: dict, output_dir: Path = EXECUTED) -> bool:
    return stale_reason(name, params, output_dir) is None


# --------------------------------------------------------------------------- running

def with_results_dir(name: str, params: dict, output_dir: str | os.PathLike = EXECUTED) -> dict:
    """``params`` plus ``RESULTS_DIR = <output_dir>/results`` when the chapter declares it and the caller left it
    unset (or None): every run by the book writes its results."""
    if declares_results(name) and not params.get(RESULTS_PARAMETER):
        return {**params, RESULTS_PARAMETER: str(results_dir(output_dir))}
    return dict(params)


def missing_results(name: str, params: dict) -> list[str]:
    """The chapters ``name`` reads whose results file is absent from its ``RESULTS_DIR``."""
    sources = reads_results(name)
    if not sources:
        return []
    from rmlib.results import results_path

    folder = params.get(RESULTS_PARAMETER)
    if not folder:
        return sources
    return [s for s in sources if not results_path(s, folder).is_file()]


def in_run_order(names: list[str]) -> list[str]:
    """``names`` in book order, except that a chapter reading others' results comes after those of them listed."""
    pending, done = list(names), []
    while pending:
        for n in pending:
            if not any(src in pending and src != n for src in reads_results(n)):
                done.append(n)
                pending.remove(n)
                break
        else:
            raise BookError(f"chapters {pending} read each other's results in a cycle (notebook metadata "
                            "rmlib.reads_results)")
    return done


@dataclass
class RunResult:
    name: str
    path: Path
    ran: bool
    seconds: float
    parameters: dict


def run_notebook(name: str, *, tiny: bool = False, params_file=None, overrides: dict | None = None,
                 output_dir: str | os.PathLike = EXECUTED, force: bool = False, timeout: int | None = None,
                 log=print) -> RunResult:
    """Execute ``notebooks/<name>.ipynb`` into ``output_dir/<name>.ipynb`` unless its stamp is current.

    ``tiny=True`` uses the template's own (tiny) defaults instead of notebooks/params/<name>.yaml.
    """
    output_dir = Path(output_dir)
    # Checking the stamp needs no papermill (slow to import); unknown keys change the hash, so
    # they are always caught by the validation below before anything runs.
    params = parameters(name, tiny=tiny, params_file=params_file, overrides=overrides, validate=False)
    params = with_results_dir(name, params, output_dir)
    out = output_dir / f"{name}.ipynb"
    reason = "forced" if force else stale_reason(name, params, output_dir)
    if reason is None:
        log(f"[book] {name}: up to date")
        return RunResult(name, out, False, 0.0, params)
    parameters(name, tiny=tiny, params_file=params_file, overrides=overrides)  # raises on unknown keys
    missing = missing_results(name, params)
    if missing:
        raise BookError(f"{name} reads the results of {missing}, which have not been written to "
                        f"{params.get(RESULTS_PARAMETER)}: run those chapters first (`make book` runs them in order)")
    import papermill

    output_dir.mkdir(parents=True, exist_ok=True)
    stamp_path(name, output_dir).unlink(missing_ok=True)
    log(f"[book] {name}: running ({reason}) with "
        f"{json.dumps(params, default=str) if params else 'the template defaults'}")
    # Hash the inputs *before* running: an edit made while the chapter runs must leave it stale.
    stamp = {"hash": content_hash(name, params), "parameters": params, "dependencies": dependencies(name, params)}
    t0 = time.perf_counter()
    # The kernel inherits these: charts rely on the page's vendored vega bundle, and tqdm progress
    # bars (saved as widgets) would only clutter a static page.
    book_env = {"RMLIB_BOOK": "1", "TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    previous = {k: os.environ.get(k) for k in book_env}
    os.environ.update(book_env)
    try:
        papermill.execute_notebook(str(template(name)), str(out), parameters=params, cwd=str(NOTEBOOKS),
                                   kernel_name="python3", progress_bar=False, execution_timeout=timeout)
    except papermill.PapermillExecutionError as e:
        raise BookError(f"{name}: cell {e.exec_count} raised {e.ename}: {e.evalue}\n"
                        f"See the executed notebook {out} for the traceback.") from None
    finally:
        for k, v in previous.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    seconds = time.perf_counter() - t0
    stamp_path(name, output_dir).write_text(json.dumps({**stamp, "seconds": round(seconds, 1)}, indent=1, default=str))
    log(f"[book] {name}: done in {seconds:.1f} s")
    return RunResult(name, out, True, seconds, params)


def run_chapters(names: list[str] | None = None, *, keep_going: bool = False, **kwargs) -> list[RunResult]:
    """Run the given chapters (default: every chapter in _toc.yml), each only if stale; chapters that read
    others' results (the claims page) run after them.

    With ``keep_going`` a failing chapter does not stop the others; one BookError lists all failures at the end.
    """
    results, failures = [], []
    for n in in_run_order(list(names or chapters())):
        try:
            results.append(run_notebook(n, **kwargs))
        except BookError as e:
            if not keep_going:
                raise
            failures.append(str(e))
    if failures:
        raise BookError(f"{len(failures)} chapter(s) failed:\n" + "\n".join(failures))
    return results


def glued(notebook: str | os.PathLike) -> dict[str, str]:
    """Values a notebook stored with ``myst_nb.glue`` ({name: text/plain repr}): what its prose shows,
    and what tests assert on."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    out = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            meta = o.get("metadata", {}).get("scrapbook")
            if meta and "name" in meta:
                prefix = meta.get("mime_prefix", "")
                out[meta["name"]] = o.get("data", {}).get(prefix + "text/plain")
    return out


def cell_errors(notebook: str | os.PathLike) -> list[str]:
    """``ename: evalue`` of every error output in an executed notebook (empty when it ran cleanly)."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in nb.cells for o in c.get("outputs", [])
            if o.get("output_type") == "error"]


# --------------------------------------------------------------------------- vendored JS and HTML

def _npm_extract(spec: str, member: str, dest: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise BookError(f"npm is needed once to fetch {spec} for offline widgets (apt-get install npm), "
                        f"or copy {member.split('/')[-1]} from that package into {dest.parent} by hand")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([npm, "pack", spec, "--silent", "--pack-destination", tmp],
                              capture_output=True, text=True)
        tgz = sorted(Path(tmp).glob("*.tgz"))
        if proc.returncode != 0 or not tgz:
            raise BookError(f"`npm pack {spec}` failed (is the npm registry reachable?):\n{proc.stderr.strip()}")
        with tarfile.open(tgz[0]) as tar:
            try:
                data = tar.extractfile(member).read()
            except KeyError:
                raise BookError(f"{spec} has no {member}; the package layout changed") from None
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)


def write_vendor(dest: str | os.PathLike = VENDOR, log=print) -> list[Path]:
    """Write the offline JS (vega bundle; require.js and the widget manager from npm) into ``dest``."""
    from importlib.metadata import version

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    bundle, marker = dest / VEGA_BUNDLE, dest / f"{VEGA_BUNDLE}.from"
    source = f"vl-convert-python=={version('vl-convert-python')}"
    if not (bundle.is_file() and marker.is_file() and marker.read_text() == source):
        from rmlib import charts

        charts.write_vega_bundle(dest)
        marker.write_text(source)
    written = [bundle]
    for spec, member, saved in NPM_FILES:
        target = dest / saved
        marker = dest / f"{saved}.from"
        if not (target.is_file() and marker.is_file() and marker.read_text() == spec):
            log(f"[book] fetching {spec} with npm pack")
            _npm_extract(spec, member, target)
            marker.write_text(spec)
        written.append(target)
    return written


def _html_inputs_hash(root: Path) -> str:
    """Hash of everything the HTML is built from (config, toc, pages, executed notebooks, vendored JS)."""
    h = hashlib.sha256()
    files = [root / "_config.yml", root / "_toc.yml"] + sorted(p for p in (root / "book").rglob("*") if p.is_file())
    for p in files:
        if p.suffix == ".stamp" or not p.is_file():
            continue
        h.update(str(p.relative_to(root)).encode())
        st = p.stat()
        # Vendored files are large and change only with their version markers: size + mtime suffice.
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode() if "vendor" in p.parts else p.read_bytes())
    return h.hexdigest()


def build_html(root: str | os.PathLike = ROOT, out: str | os.PathLike | None = None, *, strict: bool = False,
               force: bool = False) -> Path:
    """``jupyter-book build`` of the book at ``root`` into ``out/_build/html`` (default ``out`` = ``root``).

    Skipped when no input changed since the last successful build; otherwise Sphinx rebuilds
    incrementally from ``out/_build/.doctrees``. Returns the html directory.
    """
    root = Path(root)
    missing = [f for f in VENDOR_FILES if not (root / "book" / "_static" / "vendor" / f).is_file()]
    if missing:
        raise BookError(f"vendored JS {missing} missing under {root}/book/_static/vendor: run "
                        "`python -m rmlib.book vendor` (or `make book`) first")
    out = Path(out) if out else root
    html = out / "_build" / "html"
    stamp = out / "_build" / "html.stamp"
    digest = _html_inputs_hash(root)
    if not force and (html / "index.html").is_file() and stamp.is_file() and stamp.read_text() == digest:
        return html
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", str(root),
           "--path-output", str(out)]
    if strict:
        cmd += ["-W", "-n", "--keep-going"]
    stamp.unlink(missing_ok=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BookError(f"jupyter-book build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    stamp.write_text(digest)
    return html


# --------------------------------------------------------------------------- command line

def _parse_overrides(pairs: list[list[str]] | None) -> dict:
    out = {}
    for key, value in pairs or []:
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError as e:
            raise BookError(f"-p {key} {value!r}: not a YAML value ({e}); quote lists like '[\"a\", \"b\"]'") from None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rmlib.book", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("vendor", help="write the offline JS into book/_static/vendor")
    r = sub.add_parser("run", help="execute chapters with papermill (only the stale ones)")
    r.add_argument("names", nargs="*", help="chapter names (default: every chapter in _toc.yml)")
    r.add_argument("--params", help="YAML file of parameter values (applied after notebooks/params/<name>.yaml)")
    r.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("KEY", "VALUE"),
                   help="one parameter; VALUE is parsed as YAML, e.g. -p MODELS '[\"org/model\"]'")
    r.add_argument("--tiny", action="store_true", help="use the template's tiny defaults (as the tests do)")
    r.add_argument("--force", action="store_true", help="rerun even if the stamp is current")
    h = sub.add_parser("html", help="build the HTML from book/_executed (skipped when nothing changed)")
    h.add_argument("--out", default=None, help="folder to hold _build/ (default: the repository root)")
    h.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "vendor":
            for p in write_vendor():
                print(f"[book] {p.relative_to(ROOT)}")
        elif args.cmd == "run":
            run_chapters(args.names or None, keep_going=True, tiny=args.tiny, params_file=args.params,
                         overrides=_parse_overrides(args.parameter), force=args.force)
        elif args.cmd == "html":
            html = build_html(out=args.out, force=args.force)
            print(f"[book] HTML in {html}/index.html")
    except BookError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
