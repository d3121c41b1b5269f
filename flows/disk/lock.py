"""One run at a time per output dir: an advisory lock on `output/.lock`.

The lock is a `flock` on an open file, so the kernel releases it when the run
ends in any way, SIGKILL included: a killed run never leaves a stale lock.
The CLI takes it the moment it starts and holds it until publishing ends; the
flow takes it again (a no-op in the process that already holds it), so a run
started any other way (a served deployment, a test) is covered too.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.disk.files import naming_full_disk
from flows.disk.paths import OutputPaths, foreign_links
from flows.errors import OutputDirError, RunLockedError

#: Lock files this process holds (resolved path -> depth): re-entering is a no-op.
_HELD: dict[Path, int] = {}


@contextmanager
def hold_run_lock(output_dir: Path) -> Iterator[None]:
    """Hold the output dir's run lock for the `with` block (re-entrant in one process).

    Before anything is read or written, the output dir's own paths are checked
    (`paths.foreign_links`), and the lock file is opened without following a
    link (O_NOFOLLOW: a link put there between the check and the open).

    Raises:
        RunLockedError: another process holds it; the message names its pid
            and start time, read from the lock file.
        OutputDirError: a path the run writes under the output dir is a symlink.
    """
    output_dir.mkdir(parents=True, exist_ok=True)
    path = OutputPaths(output_dir).lock
    key = path.resolve()
    if key in _HELD:
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    links = foreign_links(output_dir)
    if links:
        shown = ", ".join(str(link) for link in links[:3]) + (" …" if len(links) > 3 else "")
        raise OutputDirError(
            f"{len(links)} path(s) the run writes under {output_dir} are symlinks ({shown}); "
            "a run never follows them: remove them, then run again"
        )
    fd = _open_lock(path)
    with os.fdopen(fd, "a+", encoding="utf-8") as lock:
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
        started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with naming_full_disk(path):
            lock.write(f"pid {os.getpid()}, started {started}")
            lock.flush()
        _HELD[key] = 1
        try:
            yield
        finally:
            del _HELD[key]
            lock.truncate(0)
            fcntl.flock(lock, fcntl.LOCK_UN)


def _open_lock(path: Path) -> int:
    """The lock file's descriptor: a regular file of one name, never through a link.

    Raises:
        OutputDirError: `path` is a symlink, not a regular file (a folder, a
            FIFO), or a hard link to another name (a raw dump the run would
            write its pid into).
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EISDIR):
            raise
        raise OutputDirError(
            f"the run lock {path} is a symlink or a folder; a run never writes through one: "
            "remove it"
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        raise OutputDirError(
            f"the run lock {path} is not a file of its own (a FIFO, or a hard link to another "
            "file); a run never writes into it: remove it"
        )
    return fd
