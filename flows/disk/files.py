"""Files written whole: staged, flushed and renamed into place; their sha256; several at once.

Every file a run writes under the output dir that a later reader trusts (a
state file, a record, a manifest) is written as `<name>.tmp`, flushed, and
renamed over its name, then its folder is flushed: a reader sees the old file
or the new one, never half of one. Files are written `IO_THREADS` at a time
(polars' writes and sha256 release the GIL); `results_in_order` makes an
error the one a write one file after the other would meet first.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import Future, wait
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from flows.disk.paths import staged_file

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
    frame.write_parquet(staged, compression="lz4")
    fsync_path(staged)
    os.replace(staged, path)
    fsync_path(path.parent)


def write_json(value: Any, path: Path) -> None:
    """Write `value` whole as indented JSON, flushed.

    Raises:
        OSError: the write failed (`path` is as it was).
    """
    staged = staged_file(path)
    staged.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    fsync_path(staged)
    os.replace(staged, path)
    fsync_path(path.parent)


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
