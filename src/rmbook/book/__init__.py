"""The book (layer 8): chapters run with papermill, only when stale, and rendered offline by Jupyter Book.

* ``chapters.py``: which chapters exist (``_toc.yml``), each resolved once into a :class:`Chapter` (its template,
  which may serve several chapters, its defaults, full-run and test parameters, the results it reads), the run order;
* ``parameter_check.py``: the check every chapter runs on its own parameters (:func:`check_parameters`);
* ``run_check.py``: what a run would refuse, checked before anything runs (``rmlib book run --estimate``);
* ``stamps.py``: what an executed chapter depends on, and whether it is stale;
* ``imported.py``: what a chapter's kernel imported, recorded as it ran, so its stamp hashes only those files;
* ``runner.py``: :func:`run_chapter`, :func:`run_chapters` (papermill, progress and time left);
* ``speed.py``: this machine's speed against the reference machine's, which scales the reference timings;
* ``reruns.py``: a chapter run with parameters of its own goes to a page of its own, beside the book's;
* ``parameters_table.py``: the parameters of a run shown once on its page;
* ``in_brief.py``: findings first: the brief a chapter computes last, moved under its title;
* ``landing.py``: the landing page opens with the claims page's tally and a chart of its verdicts;
* ``syllabus.py``: the course page's sessions and measured times, from each taught chapter's ``course.yaml``;
* ``course.py``: the course's student and instructor editions, built from the chapters' exercise cells
  (``make course``);
* ``solutions.py``: an exercise's solution regions, marked as nbgrader marks them: cleared to the student's stub,
  left out of the page;
* ``vendor.py``, ``html.py``: the offline JavaScript and the HTML build (the command is ``rmlib book``:
  :mod:`rmbook.cli.book`);
* ``api_pages.py``: a Sphinx extension that keeps the generated API pages in every build, not only the first.
"""
from rmbook.book.chapters import (CHAPTER_PARAMETER, CHAPTERS, EXECUTED, NOTEBOOKS, RESULTS_PARAMETER, ROOT, TOC,
                                 param_file, BookError, Chapter, chapter, chapter_cells, chapter_defaults, chapters, declared_parameters,
                                 declares_results, in_run_order, missing_results, parameters, reads_results,
                                 results_dir, template, with_results_dir)
from rmlib.lazy import lazy_face

# The rest is imported on first use (PEP 562): a chapter's kernel, which needs only check_parameters, does not
# import the runner, the HTML build or the vendoring, so an edit to them leaves every chapter current
# (rmbook.book.imported). The chapters module is imported eagerly: its function ``chapters`` shares its name.
_WHERE = {
    **dict.fromkeys(["build_html"], "html"),
    **dict.fromkeys(["lift_in_brief"], "in_brief"),
    **dict.fromkeys(["ParameterError", "check_parameters"], "parameter_check"),
    **dict.fromkeys(["parameters_markdown", "show_parameters_once"], "parameters_table"),
    **dict.fromkeys(["RERUNS", "changed_parameters", "mark_rerun", "rerun_dir", "rerun_pages"], "reruns"),
    **dict.fromkeys(["RunResult", "cell_errors", "glued", "run_chapter", "run_chapters"], "runner"),
    **dict.fromkeys(["content_hash", "dependencies", "is_current", "new_stamp", "page_problem", "stale_reason",
                     "stamp_path"], "stamps"),
    **dict.fromkeys(["PAGE_JS", "VEGA_BUNDLE", "VENDOR", "VENDOR_FILES", "write_vendor"], "vendor"),
}

__all__ = ["ROOT", "NOTEBOOKS", "CHAPTERS", "param_file", "EXECUTED", "TOC", "RESULTS_PARAMETER", "CHAPTER_PARAMETER",
           "BookError", "Chapter", "chapter", "chapters", "template", "chapter_defaults", "chapter_cells", "declared_parameters", "declares_results",
           "reads_results", "results_dir", "parameters",
           "with_results_dir", "missing_results", "in_run_order", "check_parameters", "ParameterError",
           "content_hash", "dependencies", "stale_reason", "is_current", "stamp_path", "new_stamp", "page_problem", "RunResult", "run_chapter",
           "run_chapters", "parameters_markdown", "show_parameters_once", "glued", "cell_errors", "build_html", "write_vendor", "VENDOR", "VENDOR_FILES",
           "PAGE_JS", "VEGA_BUNDLE",
           "lift_in_brief", "RERUNS", "rerun_dir", "rerun_pages", "changed_parameters", "mark_rerun"]
__getattr__, __dir__ = lazy_face(__name__, _WHERE)
