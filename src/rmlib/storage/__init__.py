"""How bytes reach disk and are proven intact (layer 0: imports nothing else from rmlib but `rmlib.config` and
`rmlib.background`).

* ``atomic.py``: files and folders that appear whole or not at all, with several processes and kills;
* ``integrity.py``: sha256 manifests of cached model folders (quick and full checks);
* ``shards.py``: Parquet shards that certify their own content (the sweep cache);
* ``claims.py``: which writer computes a shard, with a heartbeat, so a killed or restarted writer never blocks;
* ``records.py``: typed records (:class:`StoredRecord`) stored as strict JSON with a schema tag and the sha256 of
  their content, verified before they are served (the book's chapters' results are such records).
"""
from rmlib.storage import atomic, claims, integrity
from rmlib.storage.records import (JsonData, Num, Record, RecordError, Section, StoredRecord, Table, jsonable, read_record,
                                   record_problem, write_record)
from rmlib.storage.shards import ENGINE_VERSION, FORMAT, CorruptShardError, ShardError, ShardStore, sweep_key

__all__ = ["atomic", "claims", "integrity", "ShardStore", "ShardError", "CorruptShardError", "sweep_key", "ENGINE_VERSION",
           "FORMAT", "RecordError", "StoredRecord", "Section", "Record", "Num", "Table", "JsonData", "write_record",
           "read_record", "record_problem", "jsonable"]
