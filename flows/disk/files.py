"""Files written whole: staged, flushed and renamed into place; their sha256; several at once.

Every file a run writes under the output dir that a later reader trusts (a
state file, a record, a manifest) is written as `<name>.tmp`, flushed, and
renamed over its name, then its folder is flushed: a reader sees the old file
or the new one, never half of one. Files are written `IO_THREADS` at a time
(polars' writes and sha256 release the GIL); `results_in_order` makes an
error the one a write one file after the other would meet first.
`indented_json` lays out JSON as `json.dumps(indent=2)` does, faster (the manifest).
A write that meets a full file system raises DiskFullError naming the file
(`naming_full_disk`): polars says so only in an error's text.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, TypeVar

import orjson
import polars as pl

from flows.disk.paths import staged_file
from flows.errors import DiskFullError, OutputDirError

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


#: What a full file system's errors say: polars gives the text only (`parquet: File out of
#: specification: underlying IO error: No space left on device (os error 28)`, or an
#: OSError without errno from `write_ndjson`).
FULL_DISK_ERRNOS = {errno.ENOSPC: "No space left on device", errno.EDQUOT: "Disk quota exceeded"}
#: Free bytes below which a file system counts as full when a write failed without saying
#: why: polars reports a small Parquet file's failed flush as `Invalid thrift: transport error`.
FULL_BELOW_BYTES = 2**20


def full_disk_errno(exc: BaseException, folder: Path) -> int | None:
    """ENOSPC or EDQUOT when `exc` says the file system is full (by errno or text), or is
    an error without errno (polars') while `folder`'s file system has no room left."""
    for code, text in FULL_DISK_ERRNOS.items():
        if getattr(exc, "errno", None) == code or text in str(exc):
            return code
    if getattr(exc, "errno", None) is not None:  # an OSError that says what it is
        return None
    try:
        room = os.statvfs(folder)
    except OSError:
        return None
    return errno.ENOSPC if room.f_bavail * room.f_frsize < FULL_BELOW_BYTES else None


@contextmanager
def naming_full_disk(path: Path) -> Iterator[None]:
    """Turn a full file system met inside into DiskFullError naming `path`.

    Other errors, and a DiskFullError that names a file already, pass as they are.

    Raises:
        DiskFullError: `no space left on device writing <path>`.
    """
    try:
        yield
    except DiskFullError:
        raise
    except (OSError, pl.exceptions.PolarsError) as exc:
        code = full_disk_errno(exc, path.parent)
        if code is None:
            raise
        raise DiskFullError(str(path), code) from exc


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write `frame` whole as Parquet (lz4: a local cache, speed over size), flushed.

    Raises:
        DiskFullError: the file system is full (`path` is as it was).
        OSError: the write failed (`path` is as it was).
    """
    staged = staged_file(path)
    with naming_full_disk(path):
        with open_new(staged) as out:
            frame.write_parquet(out, compression="lz4")
        fsync_path(staged)
        os.replace(staged, path)
        fsync_path(path.parent)


def write_json(value: Any, path: Path) -> None:
    """Write `value` whole as indented JSON, flushed (`write_bytes`)."""
    write_bytes((json.dumps(value, indent=2) + "\n").encode(), path)


def write_bytes(data: bytes | memoryview, path: Path) -> None:
    """Write `data` whole to `path`, flushed: staged beside it (`staged_file`), then renamed.

    A staged file this call made is removed when the write fails.

    Raises:
        DiskFullError: the file system is full (`path` is as it was).
        OSError: the write failed (`path` is as it was).
    """
    staged, made = staged_file(path), False
    try:
        with naming_full_disk(path):
            with open_new(staged) as out:
                made = True
                out.write(data)
            fsync_path(staged)
            os.replace(staged, path)
            fsync_path(path.parent)
    except BaseException:
        if made:
            staged.unlink(missing_ok=True)
        raise


def describe_file(path: Path) -> dict[str, Any]:
    """A written file as a manifest lists it: its name, bytes and sha256."""
    return {"name": path.name, "bytes": path.stat().st_size, "sha256": sha256_file(path)}


def open_new(path: Path) -> IO[bytes]:
    """`path` created afresh for writing, never through a link.

    Every file a run writes under the output dir is opened here. A symlink
    there (`ln -s raw/000.txt output/state/state.json.tmp`) stops the write;
    any other entry there (a file left by an earlier run, a hard link to a raw
    dump, a FIFO) is unlinked first, which removes that name only, and the
    file is created new (O_CREAT | O_EXCL | O_NOFOLLOW): a write never
    reaches another name's bytes, and never blocks on a FIFO.

    Raises:
        OutputDirError: `path` is a symlink (its target is left untouched).
        OSError: the file could not be made (a folder in its place, or an
            entry made there meanwhile: EEXIST).
    """
    if path.is_symlink():
        raise OutputDirError(f"{path} is a symlink; a run never writes through one: remove it")
    with suppress(FileNotFoundError):
        os.unlink(path)
    return open(path, "xb", opener=_no_follow)  # the caller closes it


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)


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
        with suppress(FileExistsError):  # mkdir never follows a link
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
    step per value. A value made only of what orjson writes exactly as `json`
    does (`_orjson_exact`: dicts with string keys, lists, tuples, strings,
    64-bit ints, booleans, null) is written by orjson (`OPT_INDENT_2`: the
    same layout; compared on every character from U+0000 to U+10FFFF and on
    the manifest's shapes in `tests/disk/test_snapshot.py`): the manifest's
    100,000 inputs take 0.08 s instead of 0.32 s. Any other value (a float:
    orjson writes 1e-07 as 1e-7) is laid out here: dicts (string keys) and
    lists in plain loops, each member again by this function, and every
    other value (floats, non-string keys, empty containers) left to
    `json.dumps`. `newline` is the line break plus the current indentation.
    """
    if _orjson_exact(value):
        try:
            text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        except orjson.JSONEncodeError:  # deeper than orjson goes (254 levels), a lone surrogate
            pass
        else:  # a JSON string holds no raw line break: indenting after each one is exact
            return text if newline == "\n" else text.replace("\n", newline)
    inner = newline + "  "
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        items = [f"{inner}{_string(k)}: {_encoded(v, inner)}" for k, v in value.items()]
        return "{" + ",".join(items) + newline + "}"
    if isinstance(value, list | tuple) and value:
        return "[" + ",".join([inner + _encoded(v, inner) for v in value]) + newline + "]"
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline)


def _orjson_exact(value: Any) -> bool:
    """True when `value` holds only values orjson writes as `json.dumps` does: dicts
    with string keys, lists, tuples, strings, ints of 64 bits, booleans and None (exact
    types: a subclass, a float or a deeper nesting than Python's recursion, False)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -(2**63) <= value < 2**64
    try:
        if kind is dict:
            return all(type(key) is str and _orjson_exact(v) for key, v in value.items())
        if kind is list or kind is tuple:
            return all(map(_orjson_exact, value))
    except RecursionError:
        return False
    return False


_string = json.encoder.encode_basestring  # what json.dumps uses with ensure_ascii=False


def _encoded(value: Any, newline: str) -> str:
    if isinstance(value, str):
        return _string(value)
    if type(value) is int:  # never bool
        return int.__repr__(value)
    return indented_json(value, newline)
