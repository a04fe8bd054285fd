"""The API reference page (book/api.md) lists every top-level package and module of rmlib and rmbook, in the toc, generated
by autosummary when the book is built (a new package that is not listed would be missing from the reference)."""
from __future__ import annotations

import re

import yaml

from rmbook import book


def test_the_api_page_lists_every_package_and_is_in_the_toc():
    top = set()
    for package in ("rmlib", "rmbook"):
        src = book.ROOT / "src" / package
        top |= {f"{package}.{p.stem}" for p in src.glob("*.py") if p.stem != "__init__"}
        top |= {f"{package}.{p.name}" for p in src.iterdir() if (p / "__init__.py").is_file()}
    listed = set(re.findall(r"^   ((?:rmlib|rmbook)\.\w+)$", (book.ROOT / "book" / "api.md").read_text(), flags=re.M))
    assert listed == top
    assert "book/api" in (book.ROOT / "_toc.yml").read_text()
    sphinx = yaml.safe_load((book.ROOT / "_config.yml").read_text())["sphinx"]
    assert "sphinx.ext.autosummary" in sphinx["extra_extensions"] and sphinx["config"]["autosummary_generate"]
