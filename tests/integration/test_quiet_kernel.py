"""In a real book kernel, library warnings and log records reach the build log, not the page.

ipykernel forwards what is written to file descriptor 2 into the notebook, except when it sees pytest's
PYTEST_CURRENT_TEST: so this runs papermill in a subprocess without it, as `make book` does. Before the fix the
warning, written to ``sys.__stderr__``, came back as a stderr output on the page (a full book's implicit_vs_explicit
page showed transformers' FutureWarning with the venv's absolute path)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat

CELL = """
import logging, warnings
from rmbook.report.quiet import quiet_libraries
quiet_libraries()
warnings.warn("`is_gradient_checkpointing` is deprecated", FutureWarning)
logging.getLogger("transformers").warning("a library log record")
print("content")
"""


def test_warnings_and_library_logs_go_to_the_build_log_not_the_page(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["RMLIB_BOOK"] = "1"
    run = subprocess.run([sys.executable, "-m", "papermill", str(src), str(out), "--no-progress-bar"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    outputs = json.loads(out.read_text())["cells"][0]["outputs"]
    page = json.dumps(outputs)
    assert "content" in page
    assert "FutureWarning" not in page and "a library log record" not in page, outputs
    assert "FutureWarning" in run.stderr and "a library log record" in run.stderr  # kept, in the build log
