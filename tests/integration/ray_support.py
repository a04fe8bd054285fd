"""Starting the local Ray cluster of the Ray tests on 2 busy cores.

Ray waits a hard-coded 30 s for its raylet to register with the GCS (``ray/_private/node.py``) and then gives up
with "The current node timed out during startup". Under ``make test`` the other xdist worker keeps both cores busy
with a chapter run, and once in a slow hour that start took longer (two setup errors, 2026-12-03). Starting the
cluster is not what these tests test, so a timed-out start is shut down and tried again, at most twice more."""
from __future__ import annotations

import time

STARTS = 3


def start_ray(ray, **kwargs) -> None:
    """``ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, **kwargs)``, retried after a start that
    timed out; any other error, or a third timeout, is raised."""
    for attempt in range(1, STARTS + 1):
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, **kwargs)
            return
        except Exception as exc:  # Ray raises a bare Exception for this
            if "timed out during startup" not in str(exc) or attempt == STARTS:
                raise
            ray.shutdown()
            time.sleep(2)
