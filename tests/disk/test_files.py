"""files: a full file system is named with the file being written, however polars says it."""

from __future__ import annotations

import errno
import os
import pickle
from pathlib import Path

import polars as pl
import pytest

from flows.disk import files
from flows.errors import DiskFullError
from flows.prefect_flow import is_transient

FRAME = pl.DataFrame({"text": ["Energy counters aren't mana."] * 5000, "n": range(5000)})


def _onto_a_full_disk(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the staged file `path` is written through /dev/full: a real ENOSPC."""
    real_open_new = files.open_new
    staged = files.staged_file(path)
    monkeypatch.setattr(
        files,
        "open_new",
        lambda p: open("/dev/full", "wb") if p == staged else real_open_new(p),  # noqa: SIM115
    )


@pytest.mark.parametrize(
    "write",
    [lambda path: files.write_parquet(FRAME, path), lambda path: files.write_json([1], path)],
    ids=["parquet", "json"],
)
def test_a_full_disk_names_the_file_it_was_writing(
    write: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.parquet"
    _onto_a_full_disk(path, monkeypatch)
    with pytest.raises(DiskFullError) as failed:
        write(path)  # type: ignore[operator]
    assert str(failed.value) == f"no space left on device writing {path}"
    assert failed.value.errno == errno.ENOSPC and isinstance(failed.value, OSError)
    assert not path.exists()  # as it was


@pytest.mark.parametrize(
    ("raised", "line"),
    [
        (
            pl.exceptions.ComputeError(
                "parquet: File out of specification: underlying IO error: "
                "No space left on device (os error 28)"
            ),
            "no space left on device writing out/x",
        ),
        (OSError("No space left on device (os error 28)"), "no space left on device writing out/x"),
        (OSError(errno.ENOSPC, "No space left on device"), "no space left on device writing out/x"),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "disk quota exceeded writing out/x"),
        (pl.exceptions.ComputeError("cannot write 'Object' datatype to parquet"), None),
        (OSError(errno.EACCES, "Permission denied"), None),
        (DiskFullError("out/inner"), "no space left on device writing out/inner"),
    ],
    ids=["polars-parquet", "polars-ndjson", "enospc", "edquot", "other-polars", "eacces", "named"],
)
def test_what_names_a_full_disk(raised: Exception, line: str | None) -> None:
    expected = type(raised) if line is None else DiskFullError
    with pytest.raises(expected) as failed, files.naming_full_disk(Path("out/x")):
        raise raised
    assert (failed.value is raised) if line is None else (str(failed.value) == line)


def test_an_error_that_says_no_cause_is_a_full_disk_when_no_room_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # polars on a small Parquet file whose flush met a full disk
    thrift = pl.exceptions.ComputeError(
        "parquet: File out of specification: Invalid thrift: transport error"
    )
    with pytest.raises(pl.exceptions.ComputeError), files.naming_full_disk(tmp_path / "x"):
        raise thrift  # room left: another fault, as it is
    full = os.statvfs_result((4096, 4096, 1000, 0, 0, 100, 50, 50, 0, 255))
    monkeypatch.setattr(os, "statvfs", lambda path: full)
    with pytest.raises(DiskFullError) as full_disk, files.naming_full_disk(tmp_path / "x"):
        raise thrift
    assert str(full_disk.value) == f"no space left on device writing {tmp_path / 'x'}"
    denied = OSError(errno.EACCES, "Permission denied")  # it says what it is
    with pytest.raises(OSError) as failed, files.naming_full_disk(tmp_path / "x"):
        raise denied
    assert failed.value is denied


def test_a_full_disk_is_not_retried_and_crosses_processes() -> None:
    full = DiskFullError("out/state/registry.parquet")
    assert not is_transient(full)  # a full disk rarely frees itself within the retries' 21 s
    again = pickle.loads(pickle.dumps(full))  # a parse worker's error reaches the run
    assert (type(again), str(again), again.errno) == (DiskFullError, str(full), errno.ENOSPC)
