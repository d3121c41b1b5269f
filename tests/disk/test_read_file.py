"""A file's bytes are one version of it, and one unreadable file is one `read` reject.

No test races a thread or waits for a clock: the changes happen inside the
reading process's own calls (`os.pread`, `os.open`, `os.fstat` wrapped for one
file), at a known point of its read.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from flows.disk import read_file
from flows.disk.raw import load_raw_dumps
from flows.run import run_direct
from tests.conftest import SEED_DIR

A = b"07 juin 2024 \xc2\xb7 source : wotc\nLes marqueurs d'energie ne sont pas du mana.\n"
B = A.swapcase()  # the same size, other bytes in both halves
assert len(A) == len(B) and A[: len(A) // 2] != B[: len(A) // 2] and A[-9:] != B[-9:]
#: A past mtime (2021): a rewrite below sets its own, so every rewrite changes the mtime.
T0 = 1_600_000_000 * 10**9
CHANGED = "file changed while it was read (3 tries): not read"
SEEDS = sorted(p.name for p in SEED_DIR.glob("*.txt"))


@pytest.fixture(autouse=True)
def _flows_log_reaches_caplog(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's tests stop `flows` lines at its own handler; caplog listens at the root."""
    monkeypatch.setattr(logging.getLogger("flows"), "propagate", True)


def _file(folder: Path, name: str, content: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(content)
    os.utime(path, ns=(T0, T0))
    return path


def _write_in_place(path: Path, content: bytes, mtime_ns: int) -> None:
    """Write `content` over `path`'s bytes (same inode, no truncation first), then its mtime."""
    with path.open("r+b") as file:
        file.write(content)
        file.truncate()
    os.utime(path, ns=(mtime_ns, mtime_ns))


def _rewrite_while_read(
    monkeypatch: pytest.MonkeyPatch, path: Path, versions: list[bytes]
) -> list[int]:
    """`os.pread` for `path`: each read from its start gets half the file, then the next
    of `versions` is written over it in place; once `versions` are used, it is left alone.

    Returns:
        The sizes asked by each read of `path` from its start (one per read, in order).
    """
    real_pread, ino, left = os.pread, path.stat().st_ino, list(versions)
    starts: list[int] = []

    def pread(fd: int, size: int, offset: int) -> bytes:
        if offset != 0 or os.fstat(fd).st_ino != ino:
            return real_pread(fd, size, offset)
        starts.append(size)
        if not left:
            return real_pread(fd, size, offset)
        half = real_pread(fd, path.stat().st_size // 2, 0)
        _write_in_place(path, left.pop(0), T0 + len(starts) * 10**9)
        return half

    monkeypatch.setattr(os, "pread", pread)
    return starts


# ---- A dump that never existed is never published ----------------------------------------


def test_a_file_rewritten_while_read_is_read_again_and_gives_the_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _file(tmp_path, "a.txt", A)
    reads = _rewrite_while_read(monkeypatch, tmp_path / "a.txt", [B])
    loaded = load_raw_dumps(tmp_path, ["a.txt"])
    assert loaded.rows() == [("a.txt", B, None)]  # not A[:half] + B[half:]
    assert reads == [len(A) + 1, len(A) + 1]


def test_a_file_rewritten_during_every_read_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _file(tmp_path, "a.txt", A)
    _file(tmp_path, "b.txt", A)
    reads = _rewrite_while_read(monkeypatch, tmp_path / "a.txt", [B, A, B, A])
    loaded = load_raw_dumps(tmp_path, ["a.txt", "b.txt"])
    assert loaded.rows() == [("a.txt", None, CHANGED), ("b.txt", A, None)]
    assert len(reads) == 3
    assert f"{tmp_path / 'a.txt'}: {CHANGED}" in caplog.text


@pytest.mark.parametrize("field", ["st_mtime_ns", "st_ctime_ns"])
def test_a_change_of_mtime_or_ctime_alone_is_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    # a rewrite that puts the size and mtime back (rsync -t, touch -r) changes the ctime only;
    # the clock may not tick between two writes of a test, so the change is told by fstat
    _file(tmp_path, "a.txt", A)
    real_fstat, ino, calls = os.fstat, (tmp_path / "a.txt").stat().st_ino, []

    class Later:
        def __init__(self, info: os.stat_result) -> None:
            self._info = info

        def __getattr__(self, name: str) -> Any:
            value = getattr(self._info, name)
            return value + 1 if name == field else value

    def fstat(fd: int) -> Any:
        info = real_fstat(fd)
        if info.st_ino == ino:
            calls.append(fd)
            if len(calls) == 2:  # after the first read
                return Later(info)
        return info

    monkeypatch.setattr(os, "fstat", fstat)
    assert load_raw_dumps(tmp_path, ["a.txt"]).rows() == [("a.txt", A, None)]
    assert len(calls) == 4  # opened; after reads 1 (changed), 2 (changed back), 3 (the same)


@pytest.mark.parametrize(
    "longer",
    [A + b"07 juin 2024 \xc2\xb7 source : wotc\nUne autre.\n", B + b"Une autre.\n"],
    ids=["appended", "first-bytes-changed"],
)
def test_a_file_that_grew_once_while_read_is_read_again_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, longer: bytes
) -> None:
    # an editor saving a longer version is not cut at the old size: a version that existed
    _file(tmp_path, "a.txt", A)
    reads = _rewrite_while_read(monkeypatch, tmp_path / "a.txt", [longer])
    assert load_raw_dumps(tmp_path, ["a.txt"]).rows() == [("a.txt", longer, None)]
    assert reads == [len(A) + 1, len(longer) + 1]


def test_a_file_that_grew_during_every_read_is_read_to_its_size_at_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _file(tmp_path, "a.txt", A)
    entry = b"07 juin 2024 \xc2\xb7 source : wotc\nUne autre.\n"
    grown = [A + entry * n for n in (1, 2, 3)]
    reads = _rewrite_while_read(monkeypatch, tmp_path / "a.txt", grown)
    assert load_raw_dumps(tmp_path, ["a.txt"]).rows() == [("a.txt", A, None)]
    assert reads == [len(A) + 1, len(grown[0]) + 1, len(grown[1]) + 1, len(A)]
    assert (
        f"{tmp_path / 'a.txt'} grew from {len(A)} to {len(grown[2])} bytes during each of 3 "
        f"reads: its first {len(A)} bytes are read, the rest next run"
    ) in caplog.text


def test_a_file_that_grew_and_whose_first_bytes_changed_is_never_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _file(tmp_path, "b.txt", A)  # rewritten longer during every read: no version stays
    versions = [B + b"x" * n for n in (1, 2, 3)]
    _rewrite_while_read(monkeypatch, tmp_path / "b.txt", versions)
    assert load_raw_dumps(tmp_path, ["b.txt"]).rows() == [("b.txt", None, CHANGED)]


def test_a_file_that_grew_over_the_limit_is_not_read_after_its_first_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _file(tmp_path, "a.txt", A)
    _rewrite_while_read(monkeypatch, tmp_path / "a.txt", [B * 3])
    loaded = load_raw_dumps(tmp_path, ["a.txt"], max_file_bytes=2 * len(A))
    too_big = f"file is {3 * len(A):,} bytes, over the {2 * len(A):,}-byte size limit: not read"
    assert loaded.rows() == [("a.txt", None, too_big)]


def test_a_file_that_does_not_change_is_read_with_one_pread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its fstat size reached, no read more to find its end: the fstat after it tells a growth
    _file(tmp_path, "a.txt", A)
    _file(tmp_path, "empty.txt", b"")
    real_pread, asked = os.pread, []

    def pread(fd: int, size: int, offset: int) -> bytes:
        asked.append((os.fstat(fd).st_size, size, offset))
        return real_pread(fd, size, offset)

    monkeypatch.setattr(os, "pread", pread)
    loaded = load_raw_dumps(tmp_path, ["a.txt", "empty.txt"])
    assert loaded.rows() == [("a.txt", A, None), ("empty.txt", b"", None)]
    assert asked == [(len(A), len(A) + 1, 0), (0, 1, 0)]


# ---- One unreadable file is one reject --------------------------------------------------


def _fail_open(
    monkeypatch: pytest.MonkeyPatch, faults: dict[Path, Callable[[Path], None]]
) -> dict[Path, int]:
    """`os.open` that first calls `faults[path]` (which may raise) for each of those paths.

    Returns:
        How many times each of those paths was opened.
    """
    real_open = os.open
    real = {os.path.realpath(path): path for path in faults}
    opened = dict.fromkeys(faults, 0)

    def fake_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        name = real.get(os.fspath(path)) if isinstance(path, str) else None
        if name is not None:
            opened[name] += 1
            faults[name](name)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", fake_open)
    return opened


def _raise(number: int) -> Callable[[Path], None]:
    def fault(path: Path) -> None:
        raise OSError(number, os.strerror(number), str(path))

    return fault


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The pauses between I/O tries (not slept)."""
    slept: list[float] = []
    monkeypatch.setattr(read_file, "sleep", slept.append)
    return slept


@pytest.mark.parametrize(
    ("number", "reason"),
    [
        (errno.EACCES, "permission denied (EACCES): not read"),
        (errno.EPERM, "operation not permitted (EPERM): not read"),
        (errno.ENOENT, "file removed from the raw dir while the run read it: not read"),
        (errno.EIO, "I/O error (EIO) after 3 tries: not read"),
    ],
    ids=["eacces", "eperm", "enoent", "eio"],
)
def test_a_file_that_cannot_be_opened_is_a_reject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pauses: list[float], number: int, reason: str
) -> None:
    bad, _ = _file(tmp_path, "bad.txt", A), _file(tmp_path, "good.txt", B)
    opened = _fail_open(monkeypatch, {bad: _raise(number)})
    assert load_raw_dumps(tmp_path).rows() == [("bad.txt", None, reason), ("good.txt", B, None)]
    assert (opened[bad], pauses) == ((3, [0.1, 0.5]) if number == errno.EIO else (1, []))


def test_an_io_error_that_passes_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pauses: list[float]
) -> None:
    bad = _file(tmp_path, "bad.txt", A)
    failures = [_raise(errno.EIO), _raise(errno.EIO)]
    opened = _fail_open(
        monkeypatch, {bad: lambda path: failures.pop(0)(path) if failures else None}
    )
    assert load_raw_dumps(tmp_path).rows() == [("bad.txt", A, None)]
    assert (opened[bad], pauses) == (3, [0.1, 0.5])


def test_an_io_error_while_reading_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pauses: list[float]
) -> None:
    bad = _file(tmp_path, "bad.txt", A)
    real_pread, ino, failed = os.pread, bad.stat().st_ino, []

    def pread(fd: int, size: int, offset: int) -> bytes:
        if os.fstat(fd).st_ino == ino and not failed:
            failed.append(offset)
            raise OSError(errno.EIO, "Input/output error")
        return real_pread(fd, size, offset)

    monkeypatch.setattr(os, "pread", pread)
    assert load_raw_dumps(tmp_path).rows() == [("bad.txt", A, None)]
    assert (failed, pauses) == ([0], [0.1])


@pytest.mark.parametrize(
    ("replace", "reason"),
    [
        (os.unlink, "file removed from the raw dir while the run read it: not read"),
        (
            lambda path: (os.unlink(path), os.symlink("good.txt", path)),
            "file replaced by a symlink while the run read it: not read",
        ),
    ],
    ids=["removed", "replaced-by-a-symlink"],
)
def test_a_file_removed_or_replaced_between_listing_and_opening_is_a_reject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replace: Callable[[Path], Any], reason: str
) -> None:
    bad, _ = _file(tmp_path, "bad.txt", A), _file(tmp_path, "good.txt", B)
    _fail_open(monkeypatch, {bad: replace})  # after its lstat: a regular file
    assert load_raw_dumps(tmp_path).rows() == [("bad.txt", None, reason), ("good.txt", B, None)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_file_without_read_permission_is_a_reject(tmp_path: Path) -> None:
    bad, _ = _file(tmp_path, "bad.txt", A), _file(tmp_path, "good.txt", B)
    bad.chmod(0)
    assert load_raw_dumps(tmp_path).rows() == [
        ("bad.txt", None, "permission denied (EACCES): not read"),
        ("good.txt", B, None),
    ]


def test_an_error_that_is_not_the_files_own_stops_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = _file(tmp_path, "bad.txt", A)
    _fail_open(monkeypatch, {bad: _raise(errno.EMFILE)})
    with pytest.raises(OSError, match="Too many open files"):
        load_raw_dumps(tmp_path)


# ---- A run goes on: the rest is published, the file is a `read` reject ------------------


def _seeds(tmp_path: Path) -> Path:
    """The seeds in `tmp_path/raw`, with a past mtime (outside `raw.RACY_WINDOW_NS`)."""
    raw = tmp_path / "raw"
    for name in SEEDS:
        _file(raw, name, (SEED_DIR / name).read_bytes())
    return raw


def _read_rejects(tables: dict[str, pl.DataFrame]) -> list[tuple[Any, ...]]:
    rejects = tables["rejects"].filter(pl.col("stage") == "read")
    return rejects.select("dump_id", "line_number", "reason", "content").sort("content").rows()


def test_a_run_rejects_a_file_rewritten_during_every_read_and_publishes_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = _seeds(tmp_path)
    seed = (raw / SEEDS[1]).read_bytes()
    _rewrite_while_read(monkeypatch, raw / SEEDS[1], [seed.swapcase(), seed] * 2)
    result = run_direct(raw, tmp_path / "out")
    assert _read_rejects(result["tables"]) == [(None, None, CHANGED, SEEDS[1])]
    assert result["tables"]["dumps"]["path"].to_list() == [SEEDS[0], *SEEDS[2:]]


def test_a_run_publishes_a_file_rewritten_once_while_read_as_its_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = _seeds(tmp_path)
    seed = (raw / SEEDS[1]).read_bytes()
    new = seed.replace(b"aren't mana.", b"aren't mana!")
    assert new != seed and len(new) == len(seed)
    _rewrite_while_read(monkeypatch, raw / SEEDS[1], [new])
    result = run_direct(raw, tmp_path / "out")
    dumps = result["tables"]["dumps"]
    assert dumps.filter(pl.col("path") == SEEDS[1])["dump_id"].to_list() == [
        hashlib.sha256(new).hexdigest()
    ]
    assert dumps.height == 5 and _read_rejects(result["tables"]) == []


def test_a_file_that_grew_while_read_is_read_whole_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw, output = _seeds(tmp_path), tmp_path / "out"
    seed = (raw / SEEDS[1]).read_bytes()
    entry = b"\n07 juin 2024 \xc2\xb7 source : wotc\nLes marqueurs ne sont pas du mana.\n"
    versions = [seed + entry * n for n in (1, 2, 3)]  # appended to during every read
    grown = versions[-1]
    _rewrite_while_read(monkeypatch, raw / SEEDS[1], versions)
    first = run_direct(raw, output)
    inputs = {i["path"]: (i["bytes"], i["sha256"]) for i in first["manifest"]["inputs"]}
    assert inputs[SEEDS[1]] == (len(seed), hashlib.sha256(seed).hexdigest())
    monkeypatch.undo()
    assert os.stat(raw / SEEDS[1]).st_mtime_ns == T0 + 3 * 10**9  # long past: not racy
    second = run_direct(raw, output)  # the file index holds its metadata before the read
    inputs = {i["path"]: (i["bytes"], i["sha256"]) for i in second["manifest"]["inputs"]}
    assert inputs[SEEDS[1]] == (len(grown), hashlib.sha256(grown).hexdigest())
    assert second["manifest"]["work"]["dumps_parsed"] == 1  # the others match the index


def test_a_run_rejects_unreadable_files_and_publishes_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pauses: list[float]
) -> None:
    raw = _seeds(tmp_path)
    denied, failing, removed = (raw / name for name in SEEDS[:3])
    opened = _fail_open(
        monkeypatch, {denied: _raise(errno.EACCES), failing: _raise(errno.EIO), removed: os.unlink}
    )
    result = run_direct(raw, tmp_path / "out")
    assert _read_rejects(result["tables"]) == [
        (None, None, "permission denied (EACCES): not read", SEEDS[0]),
        (None, None, "I/O error (EIO) after 3 tries: not read", SEEDS[1]),
        (None, None, "file removed from the raw dir while the run read it: not read", SEEDS[2]),
    ]
    assert result["tables"]["dumps"]["path"].to_list() == SEEDS[3:]
    assert (opened[failing], pauses) == (3, [0.1, 0.5])
    sizes = [(n, None) for n in SEEDS[:3]] + [(n, (raw / n).stat().st_size) for n in SEEDS[3:]]
    assert [(i["path"], i["bytes"]) for i in result["manifest"]["inputs"]] == sizes
