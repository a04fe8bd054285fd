"""A Sphinx extension (named in ``_config.yml``) that keeps the API reference's generated pages in every build.

Why: Jupyter Book's ``only_build_toc_files`` (sphinx-external-toc) excludes each source file that ``_toc.yml`` does
not name, listing the files on disk when the configuration is read. autosummary writes the API pages
(``book/api/*.rst``, one per module) only later in the build, so a fresh clone's first build has them, but every
later build found them on disk and excluded them: "autosummary references excluded document", the API reference
lost its links, and the HTML kept whatever pages the first build had left (seen 2026-12-06, when a rebuild of a cold
book without ``_build`` wrote 28 pages instead of 300)."""
from __future__ import annotations

__all__ = ["API_PAGES", "keep_api_pages", "setup"]

API_PAGES = "book/api/"  # autosummary's :toctree: in book/api.md, relative to the book's root


def keep_api_pages(app, config) -> None:
    """Take the generated API pages back out of ``exclude_patterns`` (run after sphinx-external-toc added them)."""
    config["exclude_patterns"] = [p for p in config["exclude_patterns"] if not str(p).startswith(API_PAGES)]


def setup(app) -> dict:
    app.connect("config-inited", keep_api_pages, priority=950)  # sphinx-external-toc excludes at priority 900
    return {"parallel_read_safe": True, "parallel_write_safe": True}
