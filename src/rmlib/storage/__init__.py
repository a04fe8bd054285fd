"""How bytes reach disk and are proven intact (layer 0: imports nothing else from rmlib but `rmlib.config` and
`rmlib.background`).

* ``atomic.py``: files and folders that appear whole or not at all, with several processes and kills;
* ``integrity.py``: sha256 manifests of cached model folders (quick and full checks);
* ``shards.py``: Parquet shards that certify their own content (the sweep cache);
* ``claims.py``: which writer computes a shard, with a heartbeat, so a killed or restarted writer never blocks;
* ``results.py``: a chapter's typed results (:class:`ChapterResults`) as strict JSON (``RESULTS_DIR/<chapter>.json``).
"""
from rmlib.storage import atomic, claims, integrity
from rmlib.storage.results import (ChapterResults, JsonData, Num, Record, ResultsError, Section, Table, jsonable, read_results,
                                   results_path, results_problem, write_results)
from rmlib.storage.shards import ENGINE_VERSION, FORMAT, CorruptShardError, ShardError, ShardStore, sweep_key

__all__ = ["atomic", "claims", "integrity", "ShardStore", "ShardError", "CorruptShardError", "sweep_key", "ENGINE_VERSION",
           "FORMAT", "ResultsError", "ChapterResults", "Section", "Record", "Num", "Table", "JsonData", "results_path", "write_results",
           "read_results", "results_problem", "jsonable"]
