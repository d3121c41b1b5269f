"""Reading one raw file: a version that existed, or a reason it was not read.

`read_regular` reads a regular file so that its bytes are one version of it:
its metadata (size, mtime_ns, ctime_ns) is taken before and after the read,
on the same descriptor, and a file that changed meanwhile is read again (at
most `READ_TRIES` reads in all), then not read; a file that grew during
each of them keeps the bytes it had when its reads began (an append leaves
them as they were).
`read_or_reject` turns the OS errors that belong to the file (permission
denied, an I/O error after `IO_TRIES` tries, removed, replaced by a symlink)
into its reject reason, so one unreadable file does not stop the run.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Callable
from time import sleep

logger = logging.getLogger(__name__)

#: A read: (content, None), or (None, why the file is not read).
Read = tuple[bytes | None, str | None]

#: Reads of a file that changes while it is read, in all, before it is not read.
READ_TRIES = 3

#: Pauses (seconds) between the tries of a file whose read fails with EIO.
IO_PAUSES_S = (0.1, 0.5)
IO_TRIES = len(IO_PAUSES_S) + 1

#: The OS errors of a file's own (errno → reject reason); any other error stops the run.
OWN_ERRORS = {
    errno.EACCES: "permission denied (EACCES): not read",
    errno.EPERM: "operation not permitted (EPERM): not read",
    errno.EIO: f"I/O error (EIO) after {IO_TRIES} tries: not read",
    errno.ENOENT: "file removed from the raw dir while the run read it: not read",
    errno.ENOTDIR: "file removed from the raw dir while the run read it: not read",
    errno.ELOOP: "file replaced by a symlink while the run read it: not read",
}

CHANGED = f"file changed while it was read ({READ_TRIES} tries): not read"


def read_or_reject(read: Callable[[], Read], path: str) -> Read:
    """`read()` (one file's read), with the file's own OS errors as its reject reason.

    An EIO is tried again, `IO_TRIES` times in all (`IO_PAUSES_S` apart); an
    errno of `OWN_ERRORS` is logged (a warning naming `path`) and becomes the
    file's reason.

    Raises:
        OSError: any other error (no memory, too many open files, a stale NFS
            handle…): the run's, not the file's; the flow retries transient ones.
    """
    tries = 0
    while True:
        tries += 1
        try:
            return read()
        except OSError as exc:
            if exc.errno == errno.EIO and tries < IO_TRIES:
                pause = IO_PAUSES_S[tries - 1]
                logger.warning("%s: %s; reading it again in %s s", path, exc, pause)
                sleep(pause)
                continue
            reason = OWN_ERRORS.get(exc.errno or 0)
            if reason is None:
                raise
            logger.warning("%s: %s (%s)", path, reason, exc.strerror)
            return None, reason


def read_regular(target: str, max_file_bytes: int) -> Read:
    """Read `target` (a real path, opened without following a symlink) as one version.

    Returns:
        (the file's bytes, None); or (None, reason): not a regular file once
        opened, over `max_file_bytes` when a read starts (`too_big`), or
        `CHANGED` (its size, mtime or ctime changed during each of `READ_TRIES`
        reads). A file that grew during each read, and whose first bytes (up
        to its size when the reads began) read the same every time, gives
        those bytes, with a warning: its later metadata differs from the run's
        file index, so the next run reads it again, whole.

    Raises:
        OSError: opening or reading failed (see `read_or_reject`).
    """
    fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        opened = os.fstat(fd)  # what was opened, should the entry have changed
        if not stat.S_ISREG(opened.st_mode):
            return None, "not a regular file: not read"
        return _read_one_version(fd, opened, target, max_file_bytes)
    finally:
        os.close(fd)


def too_big(size: int, max_file_bytes: int) -> str:
    """The reason of a file of `size` bytes over the limit."""
    return f"file is {size:,} bytes, over the {max_file_bytes:,}-byte size limit: not read"


def _read_one_version(fd: int, before: os.stat_result, target: str, max_file_bytes: int) -> Read:
    """`read_regular`'s reads: until one starts and ends on the same metadata.

    A file that changed during every read but only grew (each read's first
    bytes, up to the size when the reads began, are those of the first read,
    twice over) gives those bytes, with a warning: an append leaves them as
    they were. A file that grew once is read again whole (an editor saving a
    longer version is not cut at the old size).
    """
    start, first = before.st_size, b""
    for tries in range(READ_TRIES):
        size = before.st_size
        if size > max_file_bytes:
            return None, too_big(size, max_file_bytes)
        content = _pread_up_to(fd, size + 1, size)  # one byte more: did it grow?
        after = os.fstat(fd)
        if len(content) == size and _stamp(after) == _stamp(before):
            return content, None
        first = content[:start] if tries == 0 else first
        before = after
    if before.st_size > start == len(first) and _pread_up_to(fd, start, start) == first:
        logger.warning(
            "%s grew from %d to %d bytes during each of %d reads: its first %d bytes are "
            "read, the rest next run",
            target, start, before.st_size, READ_TRIES, start,
        )  # fmt: skip
        return first, None
    logger.warning("%s: %s", target, CHANGED)
    return None, CHANGED


def _stamp(info: os.stat_result) -> tuple[int, int, int]:
    """What a write changes: size, mtime_ns, ctime_ns."""
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _pread_up_to(fd: int, limit: int, size: int) -> bytes:
    """Bytes of `fd` from offset 0: at most `limit`, until its end or `size` bytes.

    `size` is the file's size by its last fstat: a read that reaches it is
    not followed by one more to find the end (a syscall a file), since the
    caller compares the metadata after the read and reads again a file that
    grew. A short read before `size` goes on; one that returns nothing is the end.
    """
    chunks, done = [], 0
    while not chunks or done < min(limit, size):  # an empty file: one read, of 1 byte
        chunk = os.pread(fd, limit - done, done)
        if not chunk:
            break
        chunks.append(chunk)
        done += len(chunk)
    return b"".join(chunks)
