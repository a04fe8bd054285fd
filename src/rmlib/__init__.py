"""rmlib: a thin library behind the reward-model interpretability book.

Its packages, in layer order (ARCHITECTURE.md; a module imports only from its own layer or below):

| layer | module or package | holds |
|---|---|---|
| 0 | ``config.py`` | where rmlib reads data and writes caches (environment variables) |
| 0 | ``errors.py`` | the one error family (:class:`RmlibError`) and the input checks every layer shares |
| 0 | ``storage/`` | atomic writes, recorded hashes, self-certifying Parquet shards, the chapters' results JSON |
| 0 | ``lazy.py`` | the lazy faces of the torch packages (PEP 562): they import torch only when a name is used |
| 1 | ``registry.py`` | every model a chapter can name (``registry.yaml``), without loading anything |
| 1 | ``data/`` | checksummed fetching and tidy loaders of the research data; the reward-kind labels |
| 2 | ``models/`` | :func:`load_model`: one table of sources, one process-wide cache |
| 3 | ``engine/`` | where a model id becomes rewards: token sweeps, answers, the audit, GCG, the verified cache |
| 3 | ``train/`` | training RMs (Bradley-Terry and DPO) from any base on identical data |
| 4 | ``stats/`` | the statistics the chapters use, on scipy and statsmodels |
| 5 | ``analysis/`` | one module per finding, the claims of the papers, each chapter's typed results |
| 6 | ``report/`` | showing results: charts, tables, findings in sentences, page set-up |
| 6 | ``course/`` | the course edition's exercises: labelled checks of a student's function on planted data |
| 7 | ``book/`` | the chapters run with papermill when stale, the offline HTML build, the course editions |
| 8 | ``cli/`` | the ``rmlib`` command |
"""

__version__ = "0.1.0"
