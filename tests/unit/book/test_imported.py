"""rmbook.book.imported and the stamps that use it: a chapter is stale when a file its kernel ran changed, and only
then (a stamp that hashed the whole package made every chapter stale on any edit)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat

from rmbook import book
from rmbook.book import imported, stamps


def _record(tmp_path, code: str) -> dict | None:
    """Run ``code`` then the recording cell in a fresh interpreter; the record it wrote."""
    target = tmp_path / "imported.json"
    env = {**os.environ, imported.RECORD_ENV: str(target)}
    subprocess.run([sys.executable, "-c", code + "\n" + imported.RECORD_SOURCE], env=env, check=True, timeout=120)
    return json.loads(target.read_text()) if target.is_file() else None


def test_the_recording_cell_lists_the_modules_and_templates_the_kernel_used(tmp_path):
    record = _record(tmp_path, "import importlib\n"
                               "render = importlib.import_module('rmbook.report.prose.render')\n"
                               "render._environment().get_template(render._template_name('about'))\n")
    assert record["complete"] is True
    files = set(record["files"])
    assert {"rmlib/__init__.py", "rmbook/__init__.py", "rmbook/report/prose/render.py",
            "rmbook/chapters/about/prose.md.j2"} <= files
    assert ("rmbook/chapters/heterogeneity/analysis.py" not in files
            and "rmbook/chapters/framing/prose.md.j2" not in files)
    assert all((stamps.SOURCE_ROOT / f).is_file() for f in files)
    assert imported.read_record(tmp_path / "imported.json") == sorted(files)


def test_a_run_that_used_ray_or_wrote_nothing_hashes_every_file(tmp_path):
    # Ray's workers import in their own processes, which the kernel cannot see
    record = _record(tmp_path, "import sys, types\nsys.modules['ray'] = types.ModuleType('ray')\nimport rmlib\n")
    assert record["complete"] is False
    assert imported.read_record(tmp_path / "imported.json") is None
    assert imported.read_record(tmp_path / "missing.json") is None
    (tmp_path / "damaged.json").write_text('{"files": ["a.py"')
    assert imported.read_record(tmp_path / "damaged.json") is None
    assert stamps.ran_files(None) is None


def test_the_page_never_shows_the_recording_cell(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nb.cells.append(nbformat.from_dict(imported.recording_cell()))
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, str(path))
    imported.drop_recording(path)
    cells = nbformat.read(str(path), as_version=4).cells
    assert [c.source for c in cells] == ["x = 1"]


def test_a_chapter_is_stale_when_a_file_it_ran_changed_and_only_then(tmp_path, monkeypatch):
    src = tmp_path / "src"
    for folder in ["rmbook/chapters/framing", "rmbook/chapters/heterogeneity", "rmbook/analysis", "rmlib"]:
        (src / folder).mkdir(parents=True)
    framing = "rmbook/chapters/framing/analysis.py"
    other = src / "rmbook" / "chapters" / "heterogeneity" / "analysis.py"
    for f in ["rmbook/__init__.py", framing, "rmbook/chapters/heterogeneity/analysis.py", "rmlib/registry.yaml",
              "rmbook/chapters/heterogeneity/params.yaml"]:
        (src / f).write_text(f"# {f}\n")
    monkeypatch.setattr(stamps, "SOURCE_ROOT", src)
    out = tmp_path / "executed"
    out.mkdir()
    (out / "framing.ipynb").write_text("{}")
    params = {}

    def stamp(recorded):
        before = stamps.dependencies("framing", params)
        stamps.stamp_path("framing", out).write_text(json.dumps(stamps.new_stamp(before, recorded, params, 1.0,
                                                                                     page=out / "framing.ipynb")))

    stamp(["rmbook/__init__.py", framing])  # what framing's kernel imported
    assert sorted(json.loads(stamps.stamp_path("framing", out).read_text())["dependencies"]["source"]) == [
        "rmbook/__init__.py", framing, "rmlib/registry.yaml"]  # the packages' YAML is data the code reads: always
    assert book.stale_reason("framing", params, out) is None
    other.write_text("# another chapter's analysis, edited\n")
    (src / "rmbook" / "analysis" / "new_module.py").write_text("# a module no one imports yet\n")
    (src / "rmbook" / "chapters" / "heterogeneity" / "params.yaml").write_text("# another chapter's parameters\n")
    assert book.stale_reason("framing", params, out) is None
    (src / "rmlib" / "registry.yaml").write_text("# edited\n")
    assert book.stale_reason("framing", params, out) == "source changed: rmlib/registry.yaml"
    stamp(["rmbook/__init__.py", framing])
    (src / framing).write_text("# framing's own analysis, edited\n")
    assert book.stale_reason("framing", params, out) == f"source changed: {framing}"
    stamp(["rmbook/__init__.py", framing])
    (src / framing).unlink()  # a file it ran, removed
    assert book.stale_reason("framing", params, out) == f"source changed: {framing}"
    (src / framing).write_text("# back\n")
    stamp(None)  # no complete record: every file counts, as before (a chapter's parameter file is its values)
    other.write_text("# edited again\n")
    assert book.stale_reason("framing", params, out) == "source changed: rmbook/chapters/heterogeneity/analysis.py"
