"""A test hook: pause a run at a named step so a test can kill it exactly there.

Set `RULING_DUMPS_PAUSE_AT` to a step name (`snapshot_staged`,
`snapshot_written`, `state_staged`, `latest_switched`, `state_committed`, or
`WORKER_STEP`) and `RULING_DUMPS_PAUSE_FILE` to a path: on reaching that step
the run writes the step name and its pid to the file and sleeps until it is
killed or interrupted. Unset (as in every real run), `pause_point` does nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

#: The steps of a publish, in order, where a run can be paused.
PAUSE_STEPS = (
    "snapshot_staged",
    "snapshot_written",
    "state_staged",
    "latest_switched",
    "state_committed",
)

#: Where a language detection worker process starts its chunk of texts (`pools`): each
#: worker pauses there, and the pid in the file is a worker's. Reached only when the
#: languages are detected in workers (two cores or more, `pools.PARALLEL_MIN_TEXTS` new texts).
WORKER_STEP = "languages_in_workers"


def pause_point(step: str) -> None:
    """Sleep forever at `step` when `RULING_DUMPS_PAUSE_AT` names it (tests only)."""
    if os.environ.get("RULING_DUMPS_PAUSE_AT") != step:
        return
    marker = Path(os.environ["RULING_DUMPS_PAUSE_FILE"])
    staged = marker.with_name(marker.name + ".tmp")
    staged.write_text(f"{step} {os.getpid()}\n", encoding="utf-8")
    os.replace(staged, marker)  # whole when it appears: a test reads it as soon as it exists
    while True:
        time.sleep(1)
