"""rmbook.book.vendor: every page loads each offline script once, in order."""
from __future__ import annotations

import yaml

from rmbook import book
from rmbook.report import charts


def test_config_lists_each_page_script_once():
    cfg = yaml.safe_load((book.ROOT / "_config.yml").read_text())
    sphinx = cfg["sphinx"]["config"]
    assert sphinx["html_js_files"] == [f"vendor/{f}" for f in book.PAGE_JS]
    assert book.PAGE_JS[0] == book.VEGA_BUNDLE == charts.BUNDLE_NAME
    assert sphinx["nb_ipywidgets_js"] == {}
    assert cfg["execute"]["execute_notebooks"] == "off"
    # Jupyter Book auto-adds every .js under <root>/_static; ours is under book/_static so nothing doubles.
    assert not (book.ROOT / "_static").exists()
