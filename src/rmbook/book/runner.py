"""Running chapters with papermill: each only when stale, the claims page after what it reads, errors that say
which cell failed and where the executed notebook is."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from rmbook.book.chapters import (EXECUTED, NOTEBOOKS, RESULTS_PARAMETER, ROOT, BookError, Chapter, chapter, chapters,
                                 in_run_order, merge_sources, missing_results, with_results_dir)
from rmbook.book.imported import RECORD_ENV, drop_recording, read_costs, read_models, read_record, recording_cell
from rmbook.book.in_brief import lift_in_brief
from rmbook.book.parameters_table import show_parameters_once
from rmbook.book.run_check import check_run
from rmbook.book.solutions import without_markers
from rmbook.book.speed import calibrate, calibration_text, machine, rest_factor, speed_factor
from rmbook.book.stamps import dependencies, new_stamp, stale_reason, stamp_path
from rmbook.paths import use_checkout_folders
from rmbook.report.prose.render import plural  # counts in words: 1 chapter, 3 chapters
from rmlib import background
from rmlib.config import PROGRESS_FILE_ENV, latest_progress
from rmlib.storage import atomic
from rmlib.storage.atomic import write_bytes

__all__ = ["RunResult", "run_chapter", "run_chapters", "echo_progress", "kernel_config", "reference_seconds",
           "REFERENCE_TIMES", "previous_seconds", "remaining_estimate", "reference_calibration", "calibrated_reference",
           "reference_compute_seconds",
           "glued", "cell_errors"]

REFERENCE_TIMES = ROOT / "book" / "reference_times.yaml"  # full-parameter chapter times on a reference machine


@dataclass
class RunResult:
    name: str
    path: Path
    ran: bool
    seconds: float
    parameters: dict


def run_chapter(name: str | Chapter, *, tiny: bool = False, params_file=None, overrides: dict | None = None,
                output_dir: str | os.PathLike = EXECUTED, force: bool = False, timeout: int | None = None,
                log=print, progress_every: float = 30.0) -> RunResult:
    """Execute chapter ``name`` (its template: :func:`rmbook.book.chapters.template`) into
    ``output_dir/<name>.ipynb`` unless its stamp is current.

    ``tiny=True`` uses the template's own (tiny) defaults instead of the chapter's params.yaml. ``name`` may be
    a :class:`~rmbook.book.chapters.Chapter` already resolved.
    """
    use_checkout_folders()  # the checkout's data and cache unless the environment names others (the kernel inherits)
    ch = name if isinstance(name, Chapter) else chapter(name)
    output_dir = Path(output_dir)
    with _one_writer(ch.name, output_dir, log):
        return _run_locked(ch, tiny=tiny, params_file=params_file, overrides=overrides, output_dir=output_dir,
                           force=force, timeout=timeout, log=log, progress_every=progress_every)


@contextlib.contextmanager
def _one_writer(name: str, output_dir: Path, log):
    """Hold the page's lock (``output_dir/.<name>.lock``, flock: released when its process dies, so it cannot
    deadlock) while the page is checked, run and stamped. Two runs of one page used to interleave: the page ended
    half executed, and the next run called it up to date (#62). The second run now waits, then finds it current."""
    with atomic.file_lock(output_dir / f".{name}.lock", wait=False) as got:
        if got:
            yield
            return
    log(f"[book] {name}: waiting for another run of this page in {output_dir} to finish")
    with atomic.file_lock(output_dir / f".{name}.lock"):
        yield


def _run_locked(ch: Chapter, *, tiny, params_file, overrides, output_dir: Path, force, timeout, log,
                progress_every) -> RunResult:
    name = ch.name
    # Checking the stamp needs no papermill (slow to import); unknown keys change the hash, so
    # they are always caught by the validation below before anything runs.
    sources = ch.sources(tiny=tiny, params_file=params_file, overrides=overrides)
    params = with_results_dir(name, merge_sources(sources), output_dir)  # the files are read once
    out = output_dir / f"{name}.ipynb"
    reason = "forced" if force else stale_reason(ch, params, output_dir)
    if reason is None:
        log(f"[book] {name}: up to date")
        return RunResult(name, out, False, 0.0, params)
    ch.check(sources)  # raises on unknown keys
    missing = missing_results(name, params)
    if missing:
        raise BookError(f"{name} reads the results of {missing}, which have not been written to "
                        f"{params.get(RESULTS_PARAMETER)}: run those chapters first (`make book` runs them in order)")
    output_dir.mkdir(parents=True, exist_ok=True)
    stamp_path(name, output_dir).unlink(missing_ok=True)
    log(f"[book] {name}: running ({reason}) with "
        f"{json.dumps(params, default=str) if params else 'the template defaults'}")
    # Hash the inputs *before* running: an edit made while the chapter runs must leave it stale.
    before = dependencies(ch, params)
    t0 = time.perf_counter()
    load = os.getloadavg()[0]
    recorded, models, costs = _execute_page(ch, params, out, timeout=timeout, log=log, progress_every=progress_every)
    seconds = time.perf_counter() - t0
    stamp = new_stamp(before, recorded, params, seconds, page=out, models=models)
    stamp["costs"] = {"phases": costs, "machine": machine(), "load": [round(load, 2), round(os.getloadavg()[0], 2)]}
    write_bytes(stamp_path(name, output_dir), json.dumps(stamp, indent=1, default=str).encode("utf-8"))
    log(f"[book] {name}: done in {seconds:.1f} s")
    return RunResult(name, out, True, seconds, params)


def _execute_page(ch: Chapter, params: dict, out: Path, *, timeout, log, progress_every) -> tuple:
    """Execute into a temporary file beside ``out``, finish the page there, then rename it into place: ``out`` is
    never a page half written. A failed or interrupted run still leaves its page at ``out`` (for its traceback),
    with no stamp, so it is never current and the HTML build leaves it out (:func:`rmbook.book.stamps.page_problem`)."""
    for orphan in out.parent.glob(f".{out.stem}.*.running.ipynb"):  # a killed run's; we hold the page's lock
        orphan.unlink(missing_ok=True)
    running = out.with_name(f".{out.stem}.{os.getpid()}.running.ipynb")
    try:
        recorded = _execute(ch, params, running, page=out, timeout=timeout, log=log, progress_every=progress_every)
        drop_recording(running)
        show_parameters_once(running, params)  # the page shows one table, not the two raw parameter cells
        lift_in_brief(running)  # findings first: the brief the last cell computed goes under the title
    except BaseException:
        if running.exists():
            os.replace(running, out)
        raise
    os.replace(running, out)
    return recorded


def _execute(ch: Chapter, params: dict, out: Path, *, page: Path, timeout: int | None, log, progress_every: float):
    """Run the chapter's cells, and the cell that records what its kernel imported (:mod:`rmbook.book.imported`),
    with papermill into ``out``, in the book's environment; the record (None when incomplete), the ``local:``
    models the kernel swept ({id: fingerprint}) and where its time went ({phase: {seconds, flops, calls}})."""
    import papermill

    with tempfile.TemporaryDirectory(prefix=f"rmlib-{ch.name}-") as tmp, _book_environment(Path(tmp)) as env, \
            echo_progress(env[PROGRESS_FILE_ENV], ch.name, log, every=progress_every):
        source = Path(tmp) / f"{ch.name}.ipynb"  # the template, less the cells kept for other chapters
        cells = without_markers(ch.cells())  # the page shows a solution without its markers (rmbook.book.solutions)
        source.write_text(json.dumps({**cells, "cells": [*cells["cells"], recording_cell()]}), encoding="utf-8")
        try:
            papermill.execute_notebook(str(source), str(out), parameters=params, cwd=str(NOTEBOOKS),
                                       kernel_name="python3", progress_bar=False, execution_timeout=timeout,
                                       config=kernel_config(tmp))
        except papermill.PapermillExecutionError as e:
            drop_recording(out)  # the failed page is for reading its traceback, not the runner's bookkeeping
            raise BookError(f"{ch.name}: cell {e.exec_count} raised {e.ename}: {e.evalue}\n"
                            f"See the executed notebook {page} for the traceback.") from None
        return read_record(env[RECORD_ENV]), read_models(env[RECORD_ENV]), read_costs(env[RECORD_ENV])


@contextlib.contextmanager
def _book_environment(folder: Path):
    """The environment the kernel inherits, restored afterwards. Charts rely on the page's vendored vega bundle, and
    tqdm progress bars (saved as widgets) would only clutter a static page; rmlib's long loops write their bars to a
    progress file instead (:func:`rmlib.config.progress_bar`), which is echoed here."""
    book_env = {"RMLIB_BOOK": "1", "TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
                "HF_DATASETS_DISABLE_PROGRESS_BARS": "1", PROGRESS_FILE_ENV: str(folder / "progress.txt"),
                RECORD_ENV: str(folder / "imported.json")}  # what the kernel imported (rmbook.book.imported)
    # ipykernel stops forwarding what reaches file descriptor 2 onto the page when it sees pytest's marker, so a
    # chapter under test would hide output that a book page shows: the kernel does not inherit it.
    previous = {k: os.environ.get(k) for k in [*book_env, PYTEST_MARKER]}
    os.environ.pop(PYTEST_MARKER, None)
    os.environ.update(book_env)
    try:
        yield book_env
    finally:
        for k, v in previous.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


PYTEST_MARKER = "PYTEST_CURRENT_TEST"


def kernel_config(folder: str | os.PathLike):
    """The kernel's traitlets config: talk to it over Unix sockets in ``folder`` (a private temporary folder)
    rather than local TCP. ipykernel warns on every start that TCP is unencrypted, a line per chapter in the
    ``make book`` log that said nothing about the book; IPC sockets are private to the user and need no ports."""
    from traitlets.config import Config

    config = Config()
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(Path(folder) / "kernel")  # sockets kernel-1 ... kernel-5, removed at shutdown
    return config


def echo_progress(path: str | os.PathLike, name: str, log=print, every: float = 30.0):
    """While a chapter runs, log the latest state of its progress bars (``[book] finetuning: training ... 40%|...|
    120/300 [05:10<07:45]``) at most every ``every`` seconds, and only when it changed, so a long chapter never
    looks hung and the log stays short."""
    last = None

    def echo():
        nonlocal last
        line = latest_progress(path)
        if line and line != last:
            log(f"[book] {name}: {line}")
            last = line

    return background.every(every, echo, f"progress-{name}")


def previous_seconds(name: str, output_dir: str | os.PathLike = EXECUTED) -> float | None:
    """How long chapter ``name`` took the last time it ran to the end (its stamp records it); None if unknown."""
    try:
        return float(json.loads(stamp_path(name, Path(output_dir)).read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _reference_file(path: str | os.PathLike | None = None) -> dict:
    """:data:`REFERENCE_TIMES` (or ``path``) parsed; {} when it is missing or unreadable."""
    try:
        data = yaml.safe_load(Path(path or REFERENCE_TIMES).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def reference_seconds(path: str | os.PathLike | None = None) -> dict[str, float]:
    """Each chapter's full-parameter run time on a reference machine (:data:`REFERENCE_TIMES`, written by
    ``tools/reference_times.py`` from a cold build's stamps): the estimate for a chapter that never ran here, so a
    fresh clone's first ``make book`` shows a time left too. {} when the file is missing or unreadable."""
    try:
        return {str(k): float(v) for k, v in (_reference_file(path).get("seconds") or {}).items()}
    except (AttributeError, TypeError, ValueError):
        return {}


def reference_calibration(path: str | os.PathLike | None = None) -> dict | None:
    """The reference machine's own speed measurement (``calibration`` in :data:`REFERENCE_TIMES`: dtype,
    tokens_per_s), against which :func:`calibrated_reference` scales the timings; None when the file has none, or only
    the bare matrix-product speed recorded until 2026-12-06 (``gflops``), which this machine's measurement cannot be
    compared with."""
    found = _reference_file(path).get("calibration")
    return found if isinstance(found, dict) and "tokens_per_s" in found else None


def reference_compute_seconds(path: str | os.PathLike | None = None) -> dict[str, float]:
    """The seconds of each reference chapter spent in compute phases (``compute_seconds`` in
    :data:`REFERENCE_TIMES`, from its stamp's costs: :data:`rmbook.book.speed.COMPUTE_PHASES`); {} when unrecorded."""
    try:
        return {str(k): float(v) for k, v in (_reference_file(path).get("compute_seconds") or {}).items()}
    except (AttributeError, TypeError, ValueError):
        return {}


def calibrated_reference(names: list[str], seconds: dict[str, float | None], reference: dict[str, float], log=print,
                         measure=None, calibration: dict | None = None,
                         compute: dict[str, float] | None = None) -> tuple[dict[str, float], float | None]:
    """The reference timings scaled to this machine (:mod:`rmbook.book.speed`), measured only when a chapter still to
    run has no timing of its own here; the calibration is logged. A chapter's compute seconds (``compute``, default
    :func:`reference_compute_seconds`) scale by the forwards' factor and the rest by the Python factor; a chapter
    whose split is unrecorded, or a reference without the Python measurement, scales whole by the forwards' factor.
    Returns (scaled timings, the overall factor over the chapters still to run: what the log's "× N" says).
    Unscaled (factor None) when the reference file has no calibration or the measurement is implausible, and said
    so."""
    todo = [n for n in names if seconds.get(n) is None and n in reference]
    if not todo:
        return reference, None
    calibration = calibration if calibration is not None else reference_calibration()
    if calibration is None:
        log("[book] the reference timings come from another machine and are not scaled to this one: "
            "book/reference_times.yaml records no speed measurement (tools/reference_times.py --calibrate, run on the "
            "machine that timed the chapters, adds it)")
        return reference, None
    here = (measure or calibrate)()
    factor = speed_factor(calibration, here)
    if factor is None:
        log(f"[book] this machine's speed could not be compared with the reference machine's ({here}): the "
            "estimates below are the reference machine's times")
        return reference, None
    rest = rest_factor(calibration, here)
    compute = (reference_compute_seconds() if compute is None else compute) if rest is not None else {}
    scaled = {n: min(compute[n], s) * factor + max(s - compute[n], 0.0) * rest if n in compute else s * factor
              for n, s in reference.items()}
    log(f"[book] estimates for chapters never run here are {calibration_text(calibration, here, factor, rest)}")
    return scaled, sum(scaled[n] for n in todo) / sum(reference[n] for n in todo)


def remaining_estimate(names: list[str], seconds: dict[str, float | None],
                       reference: dict[str, float] | None = None, factor: float | None = None) -> str:
    """The time left for the chapters still to run (``about 12 min left``), from their last run times here, else
    from ``reference`` (said so: ``2 by the reference timings``, and ``× 1.3 for this machine`` when ``factor``
    scaled them, :func:`calibrated_reference`); a chapter timed nowhere is named, not guessed."""
    reference = reference or {}
    own = {n: seconds[n] for n in names if seconds.get(n) is not None}
    ref = {n: reference[n] for n in names if n not in own and n in reference}
    unknown = [n for n in names if n not in own and n not in ref]
    total = sum(own.values()) + sum(ref.values())
    parts = []
    if own or ref:
        parts.append(f"about {total / 60:.0f} min left" if total >= 60 else f"about {total:.0f} s left")
        if ref:
            counted = f"{plural(len(ref), 'chapter')} " if own else ""
            scaled = f" × {factor:.1f} for this machine" if factor is not None else ""
            parts[-1] += f" ({counted}by the reference timings{scaled})"
    if unknown:
        parts.append(f"never timed: {', '.join(unknown)}")
    return " + ".join(parts) if parts else "nothing left"


def run_chapters(names: list[str] | None = None, *, keep_going: bool = False, estimate_only: bool = False,
                 **kwargs) -> list[RunResult]:
    """Run the given chapters (default: every chapter in _toc.yml), each only if stale; chapters that read
    others' results (the claims page) run after them.

    Before each stale chapter it logs ``chapter i/N`` and the estimated time left (the stale chapters' durations
    from their last stamps), so a cold ``make book`` never looks hung.
    With ``keep_going`` a failing chapter does not stop the others; one BookError lists all failures at the end.
    ``estimate_only`` logs what would run and how long it would take, and runs nothing (``make book`` says it first,
    before fine-tuning, which runs on its own, hides the rest); it refuses the parameters a run would refuse
    (:func:`rmbook.book.run_check.check_run`).
    """
    use_checkout_folders()  # as run_chapter: the staleness checks below read the same cache as the runs
    log = kwargs.get("log", print)
    output_dir = kwargs.get("output_dir", EXECUTED)
    order = in_run_order(list(names or chapters()))
    resolved = {n: chapter(n) for n in order}
    for n in order if estimate_only else ():
        check_run(resolved[n], **kwargs)  # what a run would refuse, refused before a time is promised (#62)
    stale = [n for n in order if _is_stale(resolved[n], output_dir, kwargs)]
    seconds = {n: previous_seconds(n, output_dir) for n in stale}
    reference = {} if kwargs.get("tiny") or kwargs.get("params_file") or kwargs.get("overrides") else reference_seconds()
    reference, factor = calibrated_reference(stale, seconds, reference, log)
    if stale:
        log(f"[book] {len(stale)} of {plural(len(order), 'chapter')} to run, "
            f"{remaining_estimate(stale, seconds, reference, factor)}")
    if estimate_only:
        if not stale:
            log(f"[book] {plural(len(order), 'chapter')} up to date: 0 to run")
        return []
    results, failures = [], []
    for i, n in enumerate(order, 1):
        if n not in stale and _is_stale(resolved[n], output_dir, kwargs):  # e.g. claims, once the results it reads changed
            stale.append(n)
            seconds[n] = previous_seconds(n, output_dir)
        todo = [m for m in stale if order.index(m) >= i - 1]
        if n in stale:
            log(f"[book] chapter {i}/{len(order)}: {n}, {remaining_estimate(todo, seconds, reference, factor)}")
        try:
            results.append(run_chapter(resolved[n], **kwargs))
        except BookError as e:
            if not keep_going:
                raise
            log(f"[book] {n}: FAILED")
            failures.append(str(e))
    if failures:
        raise BookError(f"{plural(len(failures), 'chapter')} failed:\n" + "\n".join(failures))
    return results


def _is_stale(ch: Chapter, output_dir, kwargs: dict) -> bool:
    """Whether :func:`run_chapter` with these arguments would run ``name`` (as planned before the run starts;
    a page reading others' results may become stale once they ran, and then runs too)."""
    if kwargs.get("force"):
        return True
    try:
        params = ch.parameters(tiny=kwargs.get("tiny", False), params_file=kwargs.get("params_file"),
                               overrides=kwargs.get("overrides"), validate=False)
    except BookError:
        return True  # run_chapter reports the error
    return stale_reason(ch, with_results_dir(ch.name, params, Path(output_dir)), Path(output_dir)) is not None


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
