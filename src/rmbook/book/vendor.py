"""Offline JavaScript for the book: the vega bundle (from vl-convert) and the files myst-nb and Sphinx would load
from CDNs (require.js and the widget manager for saved ipywidgets, MathJax), fetched once with ``npm pack``."""
from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from rmbook.book.chapters import ROOT, BookError
from rmbook.report.charts import write_vega_bundle

__all__ = ["VENDOR", "NPM_FILES", "VEGA_BUNDLE", "PAGE_JS", "VENDOR_FILES", "write_vendor"]

VENDOR = ROOT / "book" / "_static" / "vendor"
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
VEGA_BUNDLE = "vega-embed-offline.js"  # == rmbook.report.charts.BUNDLE_NAME (not imported: altair is slow to load)
PAGE_JS = [VEGA_BUNDLE, "require.js", "embed-amd.js"]
VENDOR_FILES = [VEGA_BUNDLE] + [saved for _, _, saved in NPM_FILES]


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
        write_vega_bundle(dest)
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
