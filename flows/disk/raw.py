"""Reading raw/ (input only: nothing here writes, moves or deletes anything in it).

`list_dump_paths` lists every `*.txt` entry; `check_files` stats them and finds
those whose metadata changed since the last run (`reuse.unchanged_files`; on a
cold run `parse_batch` stats them instead, `read_stats`);
`parse_batch` reads a batch of those (`load_raw_dumps`: regular files inside
raw/ only, within the size limit, each one version of it or a `read` reject:
`read_file`), parses the new contents (`parse.parse_files`)
and writes the batch's Parquet parts under `state/parts/`, in a worker process
when given one; `read_parts` reads them back.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import time
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

from flows.disk.files import make_folder, naming_full_disk, open_new
from flows.disk.paths import escape_path, staged_file, unescape_path
from flows.disk.read_file import Read, read_or_reject, read_regular
from flows.errors import RawDirError, WorkerDiedError
from flows.stages.decode import hash_dumps
from flows.stages.parse import ParsedFiles, merge_parsed, parse_files

# `flows.stages.reuse` is imported where used: it loads the detector (langdetect's
# profiles) and wordfreq, and the command line imports this module before Prefect's
# temporary server starts; they load during its start (`prefect_server.DEFERRED_IMPORTS`).

logger = logging.getLogger(__name__)

#: File name endings read as dumps; anything else in the raw dir is ignored.
DUMP_SUFFIXES: tuple[str, ...] = (".txt",)

#: Larger files are not read (a `read` reject); a dump is a few KB; reading costs ~13× its size.
MAX_FILE_BYTES = 64 * 1024 * 1024

_FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def list_dump_paths(raw_dir: Path) -> list[str]:
    """List the dump entries below `raw_dir` as POSIX paths relative to it, sorted.

    Every entry whose name ends in one of `DUMP_SUFFIXES` and that is not a
    real folder is listed, whatever it is (a regular file, a symlink, a FIFO):
    `load_raw_dumps` decides what is read. Symlinked folders are not entered.
    Names are published by `escape_path`. The order is the same whatever
    order the file system lists them in. (os.walk and strings: pathlib costs
    seconds on 100,000 files.)

    Raises:
        RawDirError: `raw_dir` does not exist, is not a directory, or holds no
            entry ending in one of `DUMP_SUFFIXES`.
    """
    if not raw_dir.is_dir():
        raise RawDirError(
            f"raw dir {raw_dir} does not exist or is not a directory; "
            "create it and copy the dump files (*.txt) into it"
        )
    paths = []
    for folder, folders, names in os.walk(os.fspath(raw_dir)):
        relative = os.path.relpath(folder, raw_dir).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        linked = [f for f in folders if os.path.islink(os.path.join(folder, f))]
        paths += [
            escape_path(prefix + n) for n in names + linked if n.lower().endswith(DUMP_SUFFIXES)
        ]
    if not paths:
        raise RawDirError(
            f"raw dir {raw_dir} holds no dump file (expected *{', *'.join(DUMP_SUFFIXES)})"
        )
    return sorted(paths)


def dump_bytes(raw_dir: Path, paths: list[str], max_file_bytes: int = MAX_FILE_BYTES) -> int:
    """The bytes a run reads of the dumps at `paths` (`list_dump_paths`): a file over
    `max_file_bytes`, or one that cannot be stat'ed, counts 0 (a read reject)."""
    base = os.path.join(os.fspath(raw_dir), "")  # strings, not pathlib: 100,000 files
    sizes = []
    for path in paths:
        with contextlib.suppress(OSError):
            sizes.append(os.stat(base + unescape_path(path)).st_size)
    return sum(size for size in sizes if size <= max_file_bytes)


def load_raw_dumps(
    raw_dir: Path, paths: list[str] | None = None, max_file_bytes: int = MAX_FILE_BYTES
) -> pl.DataFrame:
    """Read dump files below `raw_dir` as bytes: all of them, or the `paths` given.

    Only regular files inside `raw_dir` are read. A symlink is followed only
    when its target is inside `raw_dir`; a symlink to a file outside it, a
    dangling symlink, a symlink loop, a FIFO, a socket, a device, and a file
    over `max_file_bytes` are not read (not even opened, for a FIFO or a
    device): their row has null `content` and a `read_reject`. So has a file
    that cannot be read: permission denied, an I/O error after
    `read_file.IO_TRIES` tries, removed or replaced by a symlink after it was
    listed (`read_file.read_or_reject`), or changed during each of
    `read_file.READ_TRIES` reads (`read_file.read_regular`: a file's content
    is one version of it, never bytes of two; a file that grew while read is
    read to its size when the read started, with a warning).

    Args:
        raw_dir: the raw folder.
        paths: escaped POSIX paths relative to `raw_dir` (a batch of `list_dump_paths`).
        max_file_bytes: the size limit (bytes); larger files are not read.

    Returns:
        One row per path, sorted by `path`:
        path (String): escaped POSIX path relative to `raw_dir`, e.g. "000_fbe1.txt".
        content (Binary): the file's bytes, unchanged; null when not read.
        read_reject (String): why the file was not read, else null.

    Raises:
        RawDirError: see `list_dump_paths`.
        OSError: an error that is not the file's own (no memory, too many open
            files, a stale NFS handle; transient ones are retried by the flow).
    """
    paths = list_dump_paths(raw_dir) if paths is None else sorted(paths)
    root = os.path.realpath(raw_dir)
    folders: dict[str, str | None] = {}
    read = [
        read_or_reject(partial(_read, root, raw_dir, unescape_path(p), max_file_bytes, folders), p)
        for p in paths
    ]
    raw_dumps = pl.DataFrame(
        {
            "path": paths,
            "content": [content for content, _ in read],
            "read_reject": [reason for _, reason in read],
        },
        schema={"path": pl.String, "content": pl.Binary, "read_reject": pl.String},
    )
    logger.debug("read %d dump files from %s", raw_dumps.height, raw_dir)
    return raw_dumps


def _read(
    root: str, raw_dir: Path, name: str, max_file_bytes: int, folders: dict[str, str | None]
) -> Read:
    """(content, None) for a readable file, else (None, why it is not read).

    A regular file (not a symlink) in a folder whose real path is inside
    `root` is its own real path: it is opened without resolving the whole
    path again (`folders` keeps each folder's real path, None when it is not a
    folder inside `root`). Any other entry goes through `_resolve`.
    """
    folder, base = os.path.split(name)
    if folder not in folders:
        folders[folder] = _real_folder(root, os.path.join(raw_dir, folder))
    real_folder = folders[folder]
    if real_folder is not None and base not in ("", ".", ".."):
        target = os.path.join(real_folder, base)
        try:
            plain = stat.S_ISREG(os.lstat(target).st_mode)
        except OSError:
            plain = False
        if plain:
            return read_regular(target, max_file_bytes)
    return _resolve(root, os.path.join(raw_dir, name), max_file_bytes)


def _real_folder(root: str, folder: str) -> str | None:
    """`folder`'s real path when it exists and is inside `root`, else None."""
    try:
        real = os.path.realpath(folder, strict=True)
    except OSError:
        return None
    return real if os.path.commonpath([root, real]) == root else None


def _resolve(root: str, path: str, max_file_bytes: int) -> Read:
    """`_read` of any entry: follows a symlink whose target is inside `root`, else says why not."""
    try:
        target = os.path.realpath(path, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "symlink loop: not read"
        if os.path.islink(path):
            return None, "dangling symlink (its target does not exist): not read"
        if exc.errno == errno.ENOENT:
            return None, "file removed from the raw dir while the run read it: not read"
        raise
    if os.path.commonpath([root, target]) != root:
        return None, "symlink to a file outside the raw dir: not read"
    kind = os.stat(target).st_mode
    for is_kind, name in _FILE_KINDS:
        if is_kind(kind):
            return None, f"not a regular file but {name}: not read"
    return read_regular(target, max_file_bytes)


#: A file modified less than this before its metadata was taken is not indexed
#: (read again next run): a later write within the file system's timestamp
#: granularity could leave its metadata unchanged (git's "racily clean" files).
RACY_WINDOW_NS = 2_000_000_000


def stat_dumps(raw_dir: Path, paths: list[str]) -> pl.DataFrame:
    """Each path's metadata (`os.lstat`), null for anything but a regular file.

    A symlink, a FIFO, a missing file or one modified within `RACY_WINDOW_NS`
    of now gets nulls, so it is always read (and judged by `load_raw_dumps`).

    Returns:
        STAT_SCHEMA columns, one row per path in the order given.
    """
    from flows.stages.reuse import STAT_SCHEMA  # here, not at the top: see the imports

    racy_after = time.time_ns() - RACY_WINDOW_NS
    base = os.path.join(os.fspath(raw_dir), "")  # strings, not pathlib: 100,000 files
    infos: list[os.stat_result | None] = []
    for path in paths:
        try:
            info = os.lstat(base + (unescape_path(path) if "\\" in path else path))
        except OSError:
            info = None
        indexed = info is not None and stat.S_ISREG(info.st_mode) and info.st_mtime_ns < racy_after
        infos.append(info if indexed else None)
    columns: dict[str, list[Any]] = {"path": paths}
    for column in list(STAT_SCHEMA)[1:]:
        attribute = _STAT_ATTRIBUTES[column]
        columns[column] = [None if i is None else getattr(i, attribute) for i in infos]
    return pl.DataFrame(columns, schema=STAT_SCHEMA)


_STAT_ATTRIBUTES = {
    "size": "st_size", "mtime_ns": "st_mtime_ns", "ctime_ns": "st_ctime_ns",
    "ino": "st_ino", "dev": "st_dev",
}  # fmt: skip


class FileCheck(TypedDict):
    """What `check_files` found."""

    stats: pl.DataFrame | None  # STAT_SCHEMA: every file's metadata now; None: parse_batch's
    unchanged: pl.DataFrame  # FILE_COLUMNS of the files not to read (read_reject null)
    to_read: pl.Series  # paths (String) of the files to read, in the order listed


#: Columns of each file of a parse batch, as `decode.hash_dumps` gives them without content.
FILE_COLUMNS = ("path", "read_reject", "dump_id", "byte_count")


def check_files(
    raw_dir: Path,
    paths: list[str],
    known_ids: pl.Series,
    max_file_bytes: int = MAX_FILE_BYTES,
    file_index: pl.DataFrame | None = None,
) -> FileCheck:
    """Which files must be read: metadata first, as git's index.

    A file whose metadata (size, mtime_ns, ctime_ns, inode, device) matches
    `file_index` and whose dump_id is in `known_ids` is not read: its dump_id
    and size come from the index (`reuse.unchanged_files`). Every other file
    is read (`parse_batch`). When none can match (a cold run: no index or no dump_id
    known), none is stat'ed here (`stats` None): each batch stats its own (`take_stats`).

    Args:
        raw_dir: the raw folder. paths: POSIX paths relative to it.
        known_ids: dump_ids already parsed (the cache, String).
        max_file_bytes: larger files are read never (a `read` reject, by `parse_batch`).
        file_index: the last run's index (`reuse.index_files`); None: read every file.
    """
    from flows.stages.reuse import FILE_INDEX_SCHEMA, unchanged_files  # see the imports

    cold = file_index is None or file_index.is_empty() or known_ids.is_empty()
    stats = stat_dumps(raw_dir, [] if cold else paths)
    index = file_index if file_index is not None else pl.DataFrame(schema=FILE_INDEX_SCHEMA)
    unchanged = unchanged_files(stats, index, known_ids, max_file_bytes)
    every = pl.Series("path", paths, pl.String)
    return FileCheck(
        stats=None if cold else stats,
        unchanged=unchanged.select(
            "path", pl.lit(None, pl.String).alias("read_reject"), "dump_id", "byte_count"
        ),
        to_read=every.filter(~every.is_in(unchanged["path"].implode())),
    )


def parse_batch(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    parts_dir: Path,
    name: str,
    max_file_bytes: int = MAX_FILE_BYTES,
    workers: Executor | None = None,
    take_stats: bool = False,
) -> dict[str, str]:
    """Read, hash and parse one batch of files; write its Parquet parts (`write_parts`).

    Reads the files itself, so a batch can run on another process or machine
    that sees `raw_dir`; contents parsed before (`known_ids`, String: a
    Series, since Prefect walks Python collections item by item) and a content
    twice in the batch are parsed once.

    Args:
        workers: an executor (`processes.pools.parse_workers`) to do the work
            in (the calling thread waits for it; the same value and errors);
            None: here.
        take_stats: `stat_dumps` the files before reading them: part "stats", `read_stats`.

    Raises:
        WorkerDiedError: a worker process ended abruptly (killed, out of memory).
        OSError: a file could not be read, or a part not written.

    Returns:
        {part key: Parquet path}: "files" (FILE_COLUMNS of every file of the
        batch), "dumps" and "lines" (`parse.ParsedFiles` of the new contents).
    """
    job = (raw_dir, paths, known_ids, parts_dir, name, max_file_bytes, take_stats)
    if workers is None:
        return _parse_and_write(*job)
    try:
        return workers.submit(_parse_and_write, *job).result()
    except BrokenProcessPool as exc:
        raise WorkerDiedError(f"parse {name} ran") from exc


def _parse_and_write(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    parts_dir: Path,
    name: str,
    max_file_bytes: int,
    take_stats: bool,
) -> dict[str, str]:
    stats = {"stats": stat_dumps(raw_dir, paths.to_list())} if take_stats else {}
    hashed = hash_dumps(load_raw_dumps(raw_dir, paths.to_list(), max_file_bytes))
    new = hashed.filter(~pl.col("dump_id").is_in(known_ids.implode())).unique(
        "dump_id", keep="first", maintain_order=True
    )  # a content twice in the batch is parsed once
    parsed = parse_files(new)
    return write_parts(parts_dir, name, {"files": hashed.select(FILE_COLUMNS), **parsed, **stats})


def write_parts(parts_dir: Path, name: str, frames: dict[str, pl.DataFrame]) -> dict[str, str]:
    """Write a batch's frames as Parquet parts `parts_dir/<name>.<key>.parquet` (a full disk:
    DiskFullError naming the part).

    Returns:
        {key: path} to hand to `read_parts` (on the driver, which must see `parts_dir`).
    """
    make_folder(parts_dir, parts_dir.parents[2])  # <output>/state/parts/<run_id>
    paths = {}
    for key, frame in frames.items():
        path = parts_dir / f"{name}.{key}.parquet"
        staged = staged_file(path)
        with naming_full_disk(path):
            with open_new(staged) as out:
                frame.write_parquet(out, compression="lz4")  # a local cache: speed over size
            os.replace(staged, path)
        paths[key] = str(path)
    return paths


def read_parts(parts: list[dict[str, str]]) -> tuple[list[pl.DataFrame], ParsedFiles]:
    """Read back what `parse_batch` wrote: each batch's files, and their parses merged.

    Returns:
        (the "files" frame of each batch, in order; the batches' `ParsedFiles`
        together, `parse.merge_parsed`: no batch, no dump).
    """
    batches = [{k: pl.read_parquet(part[k]) for k in ("files", "dumps", "lines")} for part in parts]
    parsed = merge_parsed(*(ParsedFiles(dumps=b["dumps"], lines=b["lines"]) for b in batches))
    return [b["files"] for b in batches], parsed


def read_stats(parts: list[dict[str, str]]) -> pl.DataFrame:
    """The files' metadata `parse_batch` took (`take_stats`): STAT_SCHEMA, batch after batch."""
    from flows.stages.reuse import STAT_SCHEMA  # here, not at the top: see the imports

    no_batch = pl.DataFrame(schema=STAT_SCHEMA)
    return pl.concat([no_batch, *(pl.read_parquet(part["stats"]) for part in parts)])
