"""One run at a time per output dir: an advisory lock on `output/.lock`.

The lock is a `flock` on an open file, so the kernel releases it when the run
ends in any way, SIGKILL included: a killed run never leaves a stale lock.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.errors import RunLockedError


@contextmanager
def hold_run_lock(output_dir: Path) -> Iterator[None]:
    """Hold the output dir's run lock for the `with` block.

    Raises:
        RunLockedError: another run holds it; the message names its pid and
            start time, read from the lock file.
    """
    output_dir.mkdir(parents=True, exist_ok=True)
    path = output_dir / ".lock"
    with path.open("a+", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "unknown run"
            raise RunLockedError(
                f"another run holds {path} ({holder}); it publishes when done, try again later"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(
            f"pid {os.getpid()}, started {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')}"
        )
        lock.flush()
        try:
            yield
        finally:
            lock.truncate(0)
            fcntl.flock(lock, fcntl.LOCK_UN)
