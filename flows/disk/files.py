"""Files written whole: staged, flushed and renamed into place; their sha256; several at once.

Every file a run writes under the output dir that a later reader trusts (a
state file, a record, a manifest) is written as `<name>.tmp`, flushed, and
renamed over its name, then its folder is flushed: a reader sees the old file
or the new one, never half of one. Files are written `IO_THREADS` at a time
(polars' writes and sha256 release the GIL); `results_in_order` makes an
error the one a write one file after the other would meet first.
`indented_json` lays out JSON as `json.dumps(indent=2)` does, faster (the manifest).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import Future, wait
from pathlib import Path
from typing import IO, Any, TypeVar

import polars as pl

from flows.disk.paths import staged_file
from flows.errors import OutputDirError

#: Files written at once: polars writes (and sha256, file reads) release the GIL.
IO_THREADS = 2

T = TypeVar("T")


def results_in_order(futures: Sequence[Future[T]]) -> list[T]:
    """The futures' results in their order; on the first error (in that order), that error.

    Before raising, futures not yet started are cancelled and the running ones
    awaited, so no write goes on behind the caller's back. The error is the
    one a loop doing the jobs one after the other in this order would raise
    first (later jobs may have run, as they could have in an earlier attempt).
    """
    try:
        return [future.result() for future in futures]
    except BaseException:
        for future in futures:
            future.cancel()
        wait(futures)
        raise


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write `frame` whole as Parquet (lz4: a local cache, speed over size), flushed.

    Raises:
        OSError: the write failed (`path` is as it was).
    """
    staged = staged_file(path)
    with open_new(staged) as out:
        frame.write_parquet(out, compression="lz4")
    fsync_path(staged)
    os.replace(staged, path)
    fsync_path(path.parent)


def write_json(value: Any, path: Path) -> None:
    """Write `value` whole as indented JSON, flushed.

    Raises:
        OSError: the write failed (`path` is as it was).
    """
    staged = staged_file(path)
    with open_new(staged) as out:
        out.write((json.dumps(value, indent=2) + "\n").encode())
    fsync_path(staged)
    os.replace(staged, path)
    fsync_path(path.parent)


def open_new(path: Path) -> IO[bytes]:
    """`path` opened for writing from its start, never through a symlink (O_NOFOLLOW).

    Every file a run writes under the output dir is opened here: a link put
    where the run writes (`ln -s raw/000.txt output/state/state.json.tmp`)
    stops the write instead of overwriting the link's target.

    Raises:
        OutputDirError: `path` is a symlink (its target is left untouched).
        OSError: the file could not be opened.
    """
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise OutputDirError(
            f"{path} is a symlink; a run never writes through one: remove it"
        ) from None
    return os.fdopen(fd, "wb")


def make_folder(path: Path, root: Path) -> None:
    """Create `path` (and the folders between `root` and it), never through a symlink.

    The folders a run writes into (`snapshots/.<run_id>.partial`, `state/`,
    `state/parts/<run_id>`) are made one at a time from `root` down, each
    checked to be a real folder (`mkdir` never follows a link; an existing
    entry is looked at with `lstat`), so nothing is made where a link leads.

    Raises:
        OutputDirError: a folder between `root` and `path`, or `path`, is a
            symlink or not a folder (a file where the run makes one).
        OSError: a folder could not be made.
    """
    root.mkdir(parents=True, exist_ok=True)  # the trusted anchor: the output dir, checked
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        with contextlib.suppress(FileExistsError):  # mkdir never follows a link
            os.mkdir(current)
        if current.is_symlink():
            raise OutputDirError(
                f"{current} is a symlink; a run never writes through one: remove it"
            )
        if not current.is_dir():
            raise OutputDirError(
                f"{current} is not a folder; a run makes its own there: move it away"
            )


def sha256_file(path: Path) -> str:
    """sha256 hex of a file's bytes, read in blocks."""
    with path.open("rb") as data:
        return hashlib.file_digest(data, "sha256").hexdigest()


def fsync_path(path: Path) -> None:
    """Flush a file or a folder (its entries) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_tree(path: Path) -> None:
    """Delete a working folder (the workers' parts of a run) if it exists."""
    shutil.rmtree(path, ignore_errors=True)


def indented_json(value: Any, newline: str = "\n") -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, faster.

    The standard library encodes with `indent` in pure Python, one generator
    step per value; here dicts (string keys) and lists are laid out the same
    way in plain loops, strings and ints encoded as `json` does, and every
    other value (floats, booleans, null, empty containers) left to `json.dumps`.
    `newline` is the line break plus the current indentation. The manifest of
    100,000 inputs takes 0.27 s instead of 0.40 s.
    """
    inner = newline + "  "
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        items = [f"{inner}{_string(k)}: {_encoded(v, inner)}" for k, v in value.items()]
        return "{" + ",".join(items) + newline + "}"
    if isinstance(value, list | tuple) and value:
        return "[" + ",".join([inner + _encoded(v, inner) for v in value]) + newline + "]"
    # A JSON string holds no raw line break: indenting after each one is exact.
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline)


_string = json.encoder.encode_basestring  # what json.dumps uses with ensure_ascii=False


def _encoded(value: Any, newline: str) -> str:
    if isinstance(value, str):
        return _string(value)
    if type(value) is int:  # never bool
        return int.__repr__(value)
    return indented_json(value, newline)
