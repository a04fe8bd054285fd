"""How bytes reach disk and are proven intact (layer 0: imports nothing else from rmlib but `rmlib.config`).

* :mod:`rmlib.storage.atomic`: files and folders that appear whole or not at all, with several processes and kills;
* :mod:`rmlib.storage.integrity`: sha256 manifests of cached model folders;
* :mod:`rmlib.storage.shards`: Parquet shards that certify their own content (the sweep cache);
* :mod:`rmlib.storage.results`: a chapter's numbers as strict JSON (``RESULTS_DIR/<chapter>.json``).
"""
from rmlib.storage import atomic, integrity
from rmlib.storage.results import (ChapterResults, JsonData, Num, Record, ResultsError, Section, Table, jsonable, read_results,
                                   results_path, write_results)
from rmlib.storage.shards import ENGINE_VERSION, FORMAT, CorruptShardError, ShardError, ShardStore, sweep_key

__all__ = ["atomic", "integrity", "ShardStore", "ShardError", "CorruptShardError", "sweep_key", "ENGINE_VERSION",
           "FORMAT", "ResultsError", "ChapterResults", "Section", "Record", "Num", "Table", "JsonData", "results_path", "write_results",
           "read_results", "jsonable"]
