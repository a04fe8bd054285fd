"""rmlib: the library behind the reward-model interpretability book, installable alone (``pip install -e .``).

It loads models, sweeps vocabularies, scores answers, trains RMs and computes the statistics. The book (the
chapters' analyses, pages and course) is the separate package ``rmbook``, which builds on this one; rmlib imports
nothing of it.

Its packages, in layer order (ARCHITECTURE.md; a module imports only from its own layer or below):

| layer | module or package | holds |
|---|---|---|
| 0 | ``config.py`` | where rmlib reads data and writes caches (environment variables) |
| 0 | ``errors.py`` | the one error family (:class:`RmlibError`) and the input checks every layer shares |
| 0 | ``storage/`` | atomic writes, recorded hashes, self-certifying Parquet shards, typed records as hashed JSON (what the book's results are) |
| 0 | ``background.py`` | work repeated in a background thread while a block runs (heartbeats, progress lines) |
| 0 | ``costs.py`` | where a process's time goes, by phase (load, sweep, answers, train, ...), and the FLOPs each ran |
| 0 | ``lazy.py`` | the lazy faces of the torch packages (PEP 562): they import torch only when a name is used |
| 1 | ``registry.py`` | every model a chapter can name (``registry.yaml``), without loading anything |
| 1 | ``trained.py`` | the RMs rmlib trained, as their exports lie in the cache (what a ``local:`` id points at) |
| 1 | ``data/`` | checksummed fetching and tidy loaders of the research data; the reward-kind labels |
| 2 | ``models/`` | :func:`load_model`: one table of sources, one process-wide cache |
| 3 | ``engine/`` | where a model id becomes rewards: token sweeps, answers, the audit, GCG, the verified cache |
| 3 | ``train/`` | training RMs (Bradley-Terry and DPO) from any base on identical data |
| 4 | ``stats/`` | the statistics the chapters use, on scipy and statsmodels |
| 4 | ``lens/`` | a reward lens: a reward split by block and layer, checked by activation patching and ablation |
| 5 | ``cli/`` | the ``rmlib`` command (the book adds ``card`` and ``book`` to it as plug-ins) |
"""

__version__ = "0.1.0"
