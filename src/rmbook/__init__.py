"""rmbook: the book built on :mod:`rmlib`, the findings' analyses, their pages and the course.

``rmlib`` is the library a researcher installs alone (``pip install -e .``): it loads models, sweeps, scores, trains
and computes the statistics, and imports nothing of this package. ``rmbook`` needs the ``book`` extra
(``pip install -e '.[book]'``; ``make`` installs it from ``environment.yml``).

Its packages, in layer order (ARCHITECTURE.md; a module imports only from its own layer or below, and from any
layer of ``rmlib``):

| layer | package | holds |
|---|---|---|
| 6 | ``chapters/`` | one folder per chapter: its analysis, results type, sentences, exercise checks (layer 7) and parameters |
| 6 | ``analysis/`` | analysis that several chapters share, and where a chapter's results type is found |
| 7 | ``report/`` | showing results: charts, tables, findings in sentences, page set-up |
| 7 | ``course/`` | the course edition's exercises: labelled checks of a student's function on planted data |
| 8 | ``book/`` | the chapters run with papermill when stale, the offline HTML build, the course editions |
| 9 | ``cli/`` | the ``rmlib book`` and ``rmlib card`` commands, which the ``rmlib`` command finds as plug-ins |

``locate.py`` (layer 6, below the chapters it finds) says where the chapters are: their folders and notebook
templates, found by name, so that no shared layer imports :mod:`rmbook.chapters`.

``paths.py`` (layer 6) says where the book lives: the checkout's folders (the executed chapters, their results, the
reruns), and the data and cache folders the book gives rmlib when the environment names none.

``results.py`` (layer 6) is what a chapter's results are: ``ChapterResults`` (a typed record that rmlib stores and
verifies, :mod:`rmlib.storage.records`), written to ``RESULTS_DIR/<chapter>.json`` and read back by the claims page,
with the chapter to rerun when a file is missing or damaged.
"""
import sys

# jsonschema (which altair and nbformat import in every chapter's kernel and every build process) loads the optional
# rfc3987_syntax when it is installed (jupyter-events asks for it), and that module compiles ~35 Earley grammars on
# import: 1.3 s of a 2.7 s kernel start on 2 cores (python-jsonschema/jsonschema#1428). It only checks the "iri"
# formats, which no schema of the book (Vega-Lite's, nbformat's) uses; marked absent, jsonschema leaves them out.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
